"""Browser test of the control page (issue 5), against the real server.

Runs headless Debian chromium through chromedriver. Each test starts its own
`tonearm serve` on a free port with `--output wav:PATH`, so what the page makes the
server play is written to a WAV file that the test then measures.

Environment:
  TONEARM_BIN      the server binary (default: .build/debug/tonearm in the checkout)
  CHROMIUM         the browser (default: chromium from PATH)
  CHROMEDRIVER     the driver (default: chromedriver from PATH)
  SCREENSHOT_DIR   where screenshots go (default: build/screenshots in the checkout)
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import socket
import struct
import subprocess
import time
import urllib.request
import wave
from array import array
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = ROOT / "public"
SCREENSHOTS = Path(os.environ.get("SCREENSHOT_DIR", ROOT / "build" / "screenshots"))
RATE = 48000
WAIT = 15  # seconds for any one expected change on the page


# MARK: Test sounds


def write_wav(path: Path, samples: list[float], rate: int = RATE) -> Path:
    """A mono 16-bit WAV from float samples in −1…1."""
    frames = array("h", (max(-32767, min(32767, int(round(s * 32767)))) for s in samples))
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(frames.tobytes())
    return path


def tremolo_tone(seconds: float = 8.0) -> list[float]:
    """A 440 Hz tone whose level swells twice a second (so the meters visibly move), with a
    click at the start."""
    out = []
    for i in range(int(seconds * RATE)):
        t = i / RATE
        level = 0.45 * (0.55 + 0.45 * math.sin(2 * math.pi * 2 * t))
        out.append(level * math.sin(2 * math.pi * 440 * t))
    for i in range(48):
        out[i] = 0.9
    return out


CLICK_AT = 0.25  # seconds of silence before the click


def click_sound() -> list[float]:
    """Silence, then a 1 ms full-ish click, then silence: 1 s in all."""
    out = [0.0] * RATE
    start = int(CLICK_AT * RATE)
    for i in range(start, start + 48):
        out[i] = 0.8
    return out


# MARK: The server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tonearm_binary() -> Path:
    path = Path(os.environ.get("TONEARM_BIN", ROOT / ".build" / "debug" / "tonearm"))
    if not path.is_file():
        pytest.fail(f"the server binary {path} does not exist: run `swift build --product tonearm` "
                    "first (or set TONEARM_BIN)")
    return path


class Server:
    """`tonearm serve` on a port, with a WAV output, a media root and a state directory."""

    def __init__(self, tmp: Path, media: Path, port: int | None = None, token: str | None = None, name: str = "server"):
        self.tmp = tmp
        self.media = media
        self.port = port or free_port()
        self.token = token
        self.wav = tmp / f"{name}-out.wav"
        self.state = tmp / f"{name}-state"
        self.log_path = tmp / f"{name}.log"
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self) -> "Server":
        self.state.mkdir(exist_ok=True)
        args = [str(tonearm_binary()), "serve", "--listen", f"127.0.0.1:{self.port}",
                "--output", f"wav:{self.wav}", "--media-root", str(self.media),
                "--state-dir", str(self.state), "--public", str(PUBLIC)]
        if self.token:
            args += ["--token", self.token]
        self.log = open(self.log_path, "ab")
        self.process = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"tonearm exited with {self.process.returncode}:\n{self.log_path.read_text()}")
            try:
                with urllib.request.urlopen(f"{self.url}healthz", timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.05)
        pytest.fail(f"tonearm did not answer on {self.url} within 20 s:\n{self.log_path.read_text()}")

    def stop(self) -> None:
        """SIGTERM, as a user's Ctrl-C: the server flushes the WAV header and exits."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                pytest.fail(f"tonearm did not exit within 15 s of SIGTERM:\n{self.log_path.read_text()}")
        if self.process:
            self.log.close()

    def api(self, method: str, path: str, body: dict | None = None) -> dict | None:
        headers = {"Accept": "application/json"}
        data = None
        if method in ("POST", "PUT", "PATCH"):
            headers["Content-Type"] = "application/json"
            data = json.dumps(body or {}).encode()
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method, headers=headers)
        with urllib.request.urlopen(request, timeout=5) as r:
            text = r.read()
            return json.loads(text) if text else None


# MARK: The browser


def find_tool(env: str, names: list[str]) -> str:
    explicit = os.environ.get(env)
    if explicit:
        return explicit
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    pytest.fail(f"{names[0]} is not installed: `apt-get install -y chromium chromium-driver` "
                f"(Tests/Browser/run.sh does it), or set {env}")


def set_viewport(driver, width: int, height: int, mobile: bool = False) -> None:
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})


def set_color_scheme(driver, scheme: str) -> None:
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                           {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
    settle(driver)


def settle(driver) -> None:
    """Waits for the page's CSS transitions to end (colours after a scheme change, layout)."""
    WebDriverWait(driver, 5, poll_frequency=0.05).until(lambda d: d.execute_script(
        "return document.getAnimations().every(a => !(a instanceof CSSTransition) || a.playState !== 'running')"))


def screenshot(driver, name: str, full_page: bool = False) -> Path:
    """Writes build/screenshots/NAME.png (the viewport, or the whole page)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    if full_page:
        import base64
        shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        path.write_bytes(base64.b64decode(shot["data"]))
    else:
        driver.save_screenshot(str(path))
    return path


@pytest.fixture
def driver():
    options = webdriver.ChromeOptions()
    options.binary_location = find_tool("CHROMIUM", ["chromium", "chromium-browser", "google-chrome"])
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,900", "--hide-scrollbars", "--lang=en-US"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(find_tool("CHROMEDRIVER", ["chromedriver"]))
    d = webdriver.Chrome(service=service, options=options)
    set_viewport(d, 1280, 900)
    set_color_scheme(d, "light")
    try:
        yield d
    finally:
        d.quit()


def severe_console_messages(driver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def write_png(path: Path, size: int = 96) -> Path:
    """A small gradient picture (cover art), without any imaging library."""
    import zlib
    rows = b"".join(b"\x00" + b"".join(bytes((int(170 * x / size) + 60, 80 + int(60 * y / size), int(190 * y / size) + 40))
                                       for x in range(size)) for y in range(size))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
    return path


def write_tagged_mp3(path: Path, source: Path, cover: Path) -> Path:
    """An MP3 with a title, artist, album and cover picture (ffmpeg, one of `make test`'s packages)."""
    ffmpeg = shutil.which("ffmpeg")
    if not ffmpeg:
        pytest.fail("ffmpeg is not installed (it makes the tagged MP3 fixture): apt-get install -y ffmpeg")
    subprocess.run([ffmpeg, "-loglevel", "error", "-y", "-i", str(source), "-i", str(cover), "-map", "0", "-map", "1",
                    "-c:a", "libmp3lame", "-b:a", "128k", "-c:v", "copy", "-id3v2_version", "3",
                    "-metadata", "title=Morning Light", "-metadata", "artist=The Tonearms", "-metadata", "album=Grooves",
                    "-metadata:s:v", "comment=Cover (front)", str(path)], check=True)
    return path


@pytest.fixture
def media(tmp_path):
    folder = tmp_path / "media"
    (folder / "clicks").mkdir(parents=True)
    write_wav(folder / "clicks" / "click.wav", click_sound())
    write_wav(folder / "swell.wav", tremolo_tone(6.0))
    write_tagged_mp3(folder / "morning.mp3", folder / "swell.wav", write_png(tmp_path / "cover.png"))
    return folder


# MARK: Page helpers


def wait(driver, condition, message: str, timeout: float = WAIT):
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.05,
                             ignored_exceptions=(StaleElementReferenceException,)).until(condition)
    except TimeoutException:
        pytest.fail(f"timed out after {timeout} s waiting for {message}")


def card(driver, player_id: str):
    return wait(driver, EC.presence_of_element_located((By.CSS_SELECTOR, f'.card[data-player-id="{player_id}"]')),
                f"the card of player '{player_id}'")


def card_state(driver, player_id: str) -> str:
    return card(driver, player_id).find_element(By.CSS_SELECTOR, ".state").text.strip().lower()


def wait_state(driver, player_id: str, states: set[str]) -> str:
    return wait(driver, lambda d: (s := card_state(d, player_id)) in states and s,
                f"player '{player_id}' to show {' or '.join(sorted(states))}")


def seek_value(driver, player_id: str) -> float:
    return float(card(driver, player_id).find_element(By.CSS_SELECTOR, ".seek-bar").get_attribute("value"))


def wait_live(driver) -> None:
    wait(driver, lambda d: d.find_element(By.ID, "connection").get_attribute("data-state") == "live",
         "the event stream to connect (status 'Live')")


def add_from_library(driver, folder: str | None, file_name: str, expected_id: str) -> None:
    """Browses the library (root → folder…) and adds a player for `file_name`."""
    for name in ["media"] + ([folder] if folder else []):
        button = wait(driver, EC.element_to_be_clickable(
            (By.XPATH, f'//ul[@id="library"]//button[contains(@class,"entry-open")][normalize-space()="{name}"]')),
            f"the library folder '{name}'")
        button.click()
    add = wait(driver, EC.element_to_be_clickable(
        (By.CSS_SELECTOR, f'#library button[aria-label="Add a player for {file_name}"]')),
        f"the library's add button for {file_name}")
    add.click()
    card(driver, expected_id)
    # Back to the library root for the next call.
    driver.find_element(By.XPATH, '//nav[@id="breadcrumb"]//button[normalize-space()="Library"]').click()
    wait(driver, EC.presence_of_element_located(
        (By.XPATH, '//ul[@id="library"]//button[normalize-space()="media"]')), "the library root")


def unlabelled_controls(driver) -> list[str]:
    """Form controls and buttons with no accessible name (label, aria-label or text)."""
    return driver.execute_script("""
        const bad = [];
        for (const el of document.querySelectorAll('input, select, textarea, button')) {
          const named = (el.labels && el.labels.length) || el.getAttribute('aria-label')
            || el.getAttribute('aria-labelledby') || (el.tagName === 'BUTTON' && el.textContent.trim());
          if (!named) bad.push(el.outerHTML.slice(0, 120));
        }
        return bad;""")


# MARK: WAV analysis


def read_float_wav(path: Path) -> tuple[int, int, array]:
    """(sample rate, channels, interleaved float32 samples) of the server's WAV output."""
    data = path.read_bytes()
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE", f"{path} is not a WAV file"
    pos, fmt, samples = 12, None, None
    while pos + 8 <= len(data):
        chunk, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        body = data[pos + 8:pos + 8 + size]
        if chunk == b"fmt ":
            tag, channels, rate, _, _, bits = struct.unpack("<HHIIHH", body[:16])
            if tag == 0xFFFE:
                tag = struct.unpack("<H", body[24:26])[0]
            fmt = (tag, channels, rate, bits)
        elif chunk == b"data":
            samples = body
            break
        pos += 8 + size + (size & 1)
    assert fmt and samples is not None, f"{path} has no fmt or data chunk"
    tag, channels, rate, bits = fmt
    assert (tag, bits) == (3, 32), f"expected 32-bit float samples, got format {tag} with {bits} bits"
    values = array("f")
    values.frombytes(samples[: len(samples) // 4 * 4])
    return rate, channels, values


def first_frame_above(samples: array, channels: int, channel: int, threshold: float) -> int | None:
    for i in range(channel, len(samples), channels):
        if abs(samples[i]) > threshold:
            return i // channels
    return None


# MARK: Tests


def test_control_page_plays_seeks_meters_and_stops(tmp_path, media, driver):
    """Load, upload through the file input, play, watch the seek bar and the meters,
    pause, stop; screenshots at desktop and phone width."""
    server = Server(tmp_path, media).start()
    try:
        driver.get(server.url)
        wait_live(driver)
        wait(driver, EC.presence_of_element_located((By.XPATH, '//ul[@id="library"]//button[normalize-space()="media"]')),
             "the media library to list its root")
        assert severe_console_messages(driver) == [], "the page logged errors while loading"
        assert driver.find_element(By.CSS_SELECTOR, '#device [data-field="sampleRate"]').text == "48 kHz"

        # Upload through the file input: a progress row, then a card named after the file.
        upload = write_wav(tmp_path / "swelling tone.wav", tremolo_tone(8.0))
        driver.find_element(By.ID, "file-input").send_keys(str(upload))
        tone = card(driver, "swelling-tone")
        assert tone.find_element(By.CSS_SELECTOR, ".title").text == "swelling tone.wav"
        assert server.api("GET", "/api/v1/players/swelling-tone")["hasData"] is True

        # Metering on, through the card's checkbox.
        tone.find_element(By.CSS_SELECTOR, '[data-field="meteringEnabled"]').click()
        wait(driver, lambda d: "metering" in card(d, "swelling-tone").get_attribute("class"), "the meters to appear")
        wait(driver, lambda d: server.api("GET", "/api/v1/players/swelling-tone")["meteringEnabled"], "metering on the server")

        # Play: the state shown changes, the seek bar moves on by itself.
        tone.find_element(By.CSS_SELECTOR, '[data-action="play"]').click()
        wait_state(driver, "swelling-tone", {"playing"})
        start = seek_value(driver, "swelling-tone")
        wait(driver, lambda d: seek_value(d, "swelling-tone") > start + 1.0, "the seek bar to advance by 1 s")
        position_text = tone.find_element(By.CSS_SELECTOR, ".time.current").text
        assert position_text != "0:00", "the position shown did not move"

        # The meters move: live readings, changing as the tone swells and fades.
        def peaks(d):
            return [float(m.get_attribute("data-peak-db"))
                    for m in card(d, "swelling-tone").find_elements(By.CSS_SELECTOR, ".meter")]
        wait(driver, lambda d: peaks(d) and max(peaks(d)) > -30, "the meters to show the tone's level")
        seen: set[float] = set()
        wait(driver, lambda d: seen.add(max(peaks(d))) or len(seen) >= 4, "the meter reading to change over time")
        fill = tone.find_element(By.CSS_SELECTOR, ".meter-fill.avg").value_of_css_property("clip-path")
        assert fill != "inset(0px 100% 0px 0px)", f"the average bar is empty: {fill}"

        # Players from the library: one with tags and a cover picture, which the card shows.
        add_from_library(driver, None, "morning.mp3", "morning")
        morning = card(driver, "morning")
        assert morning.find_element(By.CSS_SELECTOR, ".title").text == "Morning Light"
        assert "The Tonearms" in morning.find_element(By.CSS_SELECTOR, ".subtitle").text
        wait(driver, lambda d: "has-art" in card(d, "morning").find_element(By.CSS_SELECTOR, ".art").get_attribute("class"),
             "the cover picture to show")
        add_from_library(driver, None, "swell.wav", "swell")

        screenshot(driver, "desktop")
        set_color_scheme(driver, "dark")
        screenshot(driver, "desktop-dark")
        set_color_scheme(driver, "light")

        # Pause: the state shows it and the bar holds still.
        tone.find_element(By.CSS_SELECTOR, '[data-action="pause"]').click()
        wait_state(driver, "swelling-tone", {"paused"})
        held = seek_value(driver, "swelling-tone")
        assert held > start + 1.0
        driver.execute_script("return new Promise(r => setTimeout(r, 400))")
        assert abs(seek_value(driver, "swelling-tone") - held) < 0.05, "the seek bar moved while paused"

        # Space on the focused card toggles play/pause.
        driver.execute_script("arguments[0].focus()", tone)
        tone.send_keys(Keys.SPACE)
        wait_state(driver, "swelling-tone", {"playing"})
        tone.send_keys(Keys.SPACE)
        wait_state(driver, "swelling-tone", {"paused"})

        # Stop: the state changes and the position is kept (AVAudioPlayer semantics).
        tone.find_element(By.CSS_SELECTOR, '[data-action="stop"]').click()
        wait_state(driver, "swelling-tone", {"stopped"})
        assert seek_value(driver, "swelling-tone") >= held - 0.05

        # Seek by moving the bar (keyboard: Home goes to the start) → PATCH currentTime.
        bar = tone.find_element(By.CSS_SELECTOR, ".seek-bar")
        bar.send_keys(Keys.HOME)
        wait(driver, lambda d: server.api("GET", "/api/v1/players/swelling-tone")["currentTime"] < 0.01,
             "the seek to the start to reach the server")

        # An API error is shown in words next to its control: rate without enableRate (409).
        errors_before = len(tone.find_elements(By.CSS_SELECTOR, '[data-error="rate"]:not([hidden])'))
        assert errors_before == 0
        assert tone.find_element(By.CSS_SELECTOR, '[data-field="rate"]').get_attribute("disabled") is not None
        assert "Enable rate" in tone.find_element(By.CSS_SELECTOR, '[data-hint="rate"]').text

        assert severe_console_messages(driver) == [], "the page logged errors"
        assert unlabelled_controls(driver) == [], "controls without a label"

        set_viewport(driver, 390, 844, mobile=True)
        driver.execute_script("window.scrollTo(0, 0)")
        wait(driver, lambda d: d.execute_script("return document.documentElement.scrollWidth") <= 390,
             "the page to fit the phone's width without sideways scrolling")
        settle(driver)
        screenshot(driver, "phone")
        driver.execute_script("document.querySelector('#players').scrollIntoView()")
        screenshot(driver, "phone-players")
        screenshot(driver, "phone-full", full_page=True)
    finally:
        server.stop()


def test_two_players_started_together_have_one_onset(tmp_path, media, driver):
    """Two players from the library, panned hard left and right with the page's sliders,
    started together with a delay: the click lands on the same frame in both channels."""
    server = Server(tmp_path, media, name="sync").start()
    try:
        driver.get(server.url)
        wait_live(driver)
        add_from_library(driver, "clicks", "click.wav", "click")
        add_from_library(driver, "clicks", "click.wav", "click-2")

        for player_id, key, expected in (("click", Keys.HOME, -1.0), ("click-2", Keys.END, 1.0)):
            pan = card(driver, player_id).find_element(By.CSS_SELECTOR, '[data-field="pan"]')
            pan.send_keys(key)
            wait(driver, lambda d: server.api("GET", f"/api/v1/players/{player_id}")["pan"] == expected,
                 f"pan {expected} to reach the server for '{player_id}'")

        for player_id in ("click", "click-2"):
            card(driver, player_id).find_element(By.CSS_SELECTOR, ".select").click()
        delay = driver.find_element(By.ID, "group-delay")
        delay.clear()
        delay.send_keys("0.5")
        wait(driver, EC.element_to_be_clickable((By.ID, "group-play")), "the start-together button").click()
        for player_id in ("click", "click-2"):
            wait_state(driver, player_id, {"scheduled", "playing", "finished"})
        for player_id in ("click", "click-2"):
            wait_state(driver, player_id, {"finished"})
        assert not driver.find_element(By.ID, "group-error").is_displayed()
        assert severe_console_messages(driver) == [], "the page logged errors"
    finally:
        server.stop()

    rate, channels, samples = read_float_wav(server.wav)
    assert (rate, channels) == (RATE, 2)
    left = first_frame_above(samples, channels, 0, 0.1)
    right = first_frame_above(samples, channels, 1, 0.1)
    assert left is not None and right is not None, "no click in the output"
    assert left == right, f"the clicks are {right - left} frames apart (left {left}, right {right})"
    # Hard panning held: at the onset each click is in its own channel at full level.
    assert samples[left * channels] > 0.7 and samples[right * channels + 1] > 0.7


def test_token_prompt_and_reconnect_after_restart(tmp_path, media, driver):
    """A server with a token: the page asks for it, keeps it, and after a server restart
    the event stream comes back by itself and the page catches up."""
    server = Server(tmp_path, media, token="s3cret", name="auth").start()
    try:
        driver.get(server.url)
        dialog = wait(driver, EC.visibility_of_element_located((By.ID, "token-dialog")), "the token prompt")
        dialog.find_element(By.ID, "token-input").send_keys("s3cret", Keys.ENTER)
        wait_live(driver)
        assert driver.execute_script("return localStorage.getItem('tonearm.token')") == "s3cret"

        server.api("POST", "/api/v1/players", {"url": "media/swell.wav", "id": "before"})
        card(driver, "before")

        server.stop()
        wait(driver, lambda d: d.find_element(By.ID, "connection").get_attribute("data-state") != "live",
             "the page to notice the server went away")
        server = Server(tmp_path, media, port=server.port, token="s3cret", name="auth").start()
        wait_live(driver)
        server.api("POST", "/api/v1/players", {"url": "media/clicks/click.wav", "id": "after"})
        card(driver, "after")
        card(driver, "before")  # restored from the state directory, still shown
        server.api("DELETE", "/api/v1/players/before")
        wait(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, '.card[data-player-id="before"]'),
             "the deleted player's card to go")
    finally:
        server.stop()
