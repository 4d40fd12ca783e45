// One player as a card: what it is, its state, transport, a live seek bar, its settings,
// meters and fade. The card keeps the last player object from the server and moves the
// seek bar between progress events by itself (see `frame`).

import { api, getToken } from './api.js';
import { Meters } from './meters.js';
import {
  formatTime, formatPan, formatPercent, formatRate, describeSettings, fileName, showError,
} from './format.js';

const PREPARED = new Set(['prepared', 'scheduled', 'playing', 'paused']);
const RUNNING = new Set(['playing', 'scheduled']);
const UPLOAD_NAMES_KEY = 'tonearm.uploadNames';

/** The original file names of uploads (the server keeps only the bytes), by player id. */
export const uploadNames = {
  all() { try { return JSON.parse(localStorage.getItem(UPLOAD_NAMES_KEY)) || {}; } catch { return {}; } },
  get(id) { return this.all()[id]; },
  set(id, name) { const all = this.all(); all[id] = name; localStorage.setItem(UPLOAD_NAMES_KEY, JSON.stringify(all)); },
  remove(id) { const all = this.all(); delete all[id]; localStorage.setItem(UPLOAD_NAMES_KEY, JSON.stringify(all)); },
};

let cardCount = 0;

export class PlayerCard {
  /**
   * @param {object} player the server's player object
   * @param {object} ctx `{ requestFrame(), selectionChanged(), meteringChanged(), removed(card) }`
   */
  constructor(player, ctx) {
    this.ctx = ctx;
    this.id = player.id;
    this.player = player;
    this.editing = {};      // field → time of the last local change (server echoes wait)
    this.inflight = {};     // field → a PATCH is on its way
    this.pending = {};      // field → the newest value not yet sent
    this.dragging = false;
    this.seeking = false;
    this.base = { position: player.currentTime || 0, at: performance.now() };
    this.artworkURL = '';

    const fragment = document.getElementById('player-template').content.cloneNode(true);
    this.el = fragment.querySelector('.card');
    this.el.dataset.playerId = player.id;
    this.el.setAttribute('aria-keyshortcuts', 'Space');
    const prefix = `card${++cardCount}`;
    const $ = (selector) => this.el.querySelector(selector);
    this.$ = $;

    // Give every control an id and tie its label to it.
    for (const input of this.el.querySelectorAll('[data-field], [data-fade]')) {
      const name = input.dataset.field || `fade-${input.dataset.fade}`;
      input.id = `${prefix}-${name}`;
      const label = this.el.querySelector(`label[data-for="${name}"]`);
      if (label) label.htmlFor = input.id;
    }
    for (const output of this.el.querySelectorAll('output[data-out]')) {
      output.htmlFor = `${prefix}-${output.dataset.out}`;
    }
    const rateHint = $('[data-hint="rate"]');
    rateHint.id = `${prefix}-rate-hint`;
    $('[data-field="rate"]').setAttribute('aria-describedby', rateHint.id);
    const optionsHint = $('[data-hint="options"]');
    optionsHint.id = `${prefix}-options-hint`;
    $('[data-field="enableRate"]').setAttribute('aria-describedby', optionsHint.id);
    $('[data-field="numberOfLoops"]').setAttribute('title', '0 plays once, n plays n+1 times, −1 loops until stopped');

    this.ui = {
      select: $('.select'), art: $('.art'), title: $('.title'), subtitle: $('.subtitle'), state: $('.state'),
      del: $('.delete'), seek: $('.seek-bar'), current: $('.time.current'), duration: $('.time.duration'),
      volume: $('[data-field="volume"]'), pan: $('[data-field="pan"]'), rate: $('[data-field="rate"]'),
      enableRate: $('[data-field="enableRate"]'), metering: $('[data-field="meteringEnabled"]'),
      loops: $('[data-field="numberOfLoops"]'), meters: $('.meters'), rateHint, optionsHint,
      fadeForm: $('.fade'), fadeVolume: $('[data-fade="volume"]'), fadeDuration: $('[data-fade="duration"]'),
      buttons: Object.fromEntries([...this.el.querySelectorAll('[data-action]')].map((b) => [b.dataset.action, b])),
    };
    this.errors = Object.fromEntries([...this.el.querySelectorAll('[data-error]')].map((e) => [e.dataset.error, e]));
    this.meters = new Meters(this.ui.meters, player.id);

    this.wire();
    this.update(player);
  }

  // MARK: Wiring

  wire() {
    const { ui } = this;
    for (const [action, button] of Object.entries(ui.buttons)) {
      button.addEventListener('click', () => this.transport(action));
    }
    ui.select.addEventListener('change', () => this.ctx.selectionChanged());
    ui.del.addEventListener('click', () => this.remove());

    // Seek: the bar follows the sound until the user takes it; on release it seeks.
    ui.seek.addEventListener('pointerdown', () => { this.dragging = true; });
    ui.seek.addEventListener('pointerup', () => setTimeout(() => { if (!this.seeking) this.dragging = false; }, 0));
    ui.seek.addEventListener('pointercancel', () => { this.dragging = false; });
    ui.seek.addEventListener('input', () => {
      this.dragging = true;
      ui.current.textContent = formatTime(Number(ui.seek.value));
    });
    ui.seek.addEventListener('change', () => this.seek(Number(ui.seek.value)));

    for (const field of ['volume', 'pan', 'rate']) {
      ui[field].addEventListener('input', () => {
        const value = Number(ui[field].value);
        this.showValue(field, value);
        this.send(field, value);
      });
    }
    ui.enableRate.addEventListener('change', () => this.send('enableRate', ui.enableRate.checked, 'options'));
    ui.metering.addEventListener('change', () => this.send('meteringEnabled', ui.metering.checked, 'options'));
    ui.loops.addEventListener('change', () => {
      const loops = Math.trunc(Number(ui.loops.value));
      if (!Number.isFinite(loops) || ui.loops.value === '') {
        showError(this.errors.options, 'Loops must be a whole number: 0 plays once, −1 loops until stopped.');
        return;
      }
      this.send('numberOfLoops', loops, 'options');
    });
    ui.fadeForm.addEventListener('submit', (event) => {
      event.preventDefault();
      this.fade();
    });

    // Space on the card itself toggles play/pause (controls inside keep their own keys).
    this.el.addEventListener('keydown', (event) => {
      if (event.key !== ' ' || event.target !== this.el || event.repeat) return;
      event.preventDefault();
      this.transport(RUNNING.has(this.player.state) ? 'pause' : 'play');
    });
  }

  // MARK: Requests

  get path() { return `/api/v1/players/${encodeURIComponent(this.id)}`; }

  /** Runs a request, showing its error (or clearing the old one) in `slot`. */
  async run(slot, request) {
    const el = this.errors[slot];
    try {
      const result = await request();
      showError(el, null);
      return result;
    } catch (error) {
      showError(el, error);
      return undefined;
    }
  }

  async transport(action) {
    this.el.classList.add('busy');
    const result = await this.run('transport', async () => {
      const answer = await api('POST', `${this.path}/${action}`);
      if (action === 'prepare' && answer && answer.ok === false) {
        throw new Error('The player could not be prepared (the sound could not be read).');
      }
      return answer;
    });
    this.el.classList.remove('busy');
    if (result && result.id) this.update(result);
    else if (result) this.refresh();
  }

  async refresh() {
    const player = await this.run('transport', () => api('GET', this.path));
    if (player) this.update(player);
  }

  /** PATCHes one field; while a request is on its way, only the newest value waits. */
  send(field, value, slot = field) {
    this.editing[field] = performance.now();
    this.pending[field] = value;
    if (!this.inflight[field]) this.flush(field, slot);
  }

  async flush(field, slot) {
    this.inflight[field] = true;
    while (field in this.pending) {
      const value = this.pending[field];
      delete this.pending[field];
      const player = await this.run(slot, () => api('PATCH', this.path, { [field]: value }));
      if (player && !(field in this.pending)) {
        this.inflight[field] = false;
        this.update(player);
      } else if (!player) {
        delete this.pending[field];
      }
    }
    this.inflight[field] = false;
    this.editing[field] = 0;
    this.update(this.player); // put back the server's value if the change was refused
  }

  async seek(position) {
    this.seeking = true;
    const player = await this.run('seek', () => api('PATCH', this.path, { currentTime: position }));
    this.seeking = false;
    this.dragging = false;
    if (player) this.update(player);
    else this.render();
  }

  async fade() {
    const volume = Number(this.ui.fadeVolume.value);
    const duration = Number(this.ui.fadeDuration.value);
    if (this.ui.fadeVolume.value === '' || !(volume >= 0 && volume <= 1)) {
      showError(this.errors.fade, 'The fade target is a volume from 0 to 1.');
      return;
    }
    if (this.ui.fadeDuration.value === '' || !(duration >= 0)) {
      showError(this.errors.fade, 'The fade duration is a number of seconds (0 or more).');
      return;
    }
    const player = await this.run('fade', () => api('POST', `${this.path}/fade`, { volume, duration }));
    if (player) {
      this.update(player);
      this.fadeUntil = performance.now() + duration * 1000;
    }
  }

  async remove() {
    this.ui.del.disabled = true;
    const done = await this.run('delete', async () => { await api('DELETE', this.path); return true; });
    if (done) { uploadNames.remove(this.id); this.ctx.removed(this); } else this.ui.del.disabled = false;
  }

  // MARK: Server state in

  get title() {
    const p = this.player;
    return p.metadata?.title || uploadNames.get(p.id) || fileName(p.url) || p.id;
  }

  /** A whole player object (GET, PATCH answer, player.created/updated). */
  update(player) {
    const stateChanged = player.state !== this.player.state;
    this.player = { ...this.player, ...player };
    if (!this.dragging && !this.seeking) this.rebase(player.currentTime ?? this.player.currentTime);
    this.render();
    if (stateChanged) this.ctx.requestFrame();
    this.ctx.changed?.();
  }

  /** `player.state`: the state and position at a transition. */
  applyState(data) {
    this.player.state = data.state;
    this.player.playing = data.playing;
    if (!this.dragging && !this.seeking && typeof data.currentTime === 'number') this.rebase(data.currentTime);
    if (!RUNNING.has(data.state) && data.state !== 'paused') this.meters.reset();
    this.render();
    this.ctx.requestFrame();
  }

  /** `player.progress`: where the sound is now. */
  applyProgress(data) {
    if (typeof data.duration === 'number') this.player.duration = data.duration;
    this.player.currentTime = data.currentTime;
    if (!this.dragging && !this.seeking) this.rebase(data.currentTime);
    this.ctx.requestFrame();
  }

  applyMeters(data) {
    // A reading taken just before a stop can arrive after the stop's state event: ignore it.
    if (!this.player.meteringEnabled || !RUNNING.has(this.player.state) && this.player.state !== 'paused') return;
    this.meters.update(data.channels || []);
    this.ctx.requestFrame();
  }

  rebase(position) {
    this.base = { position: position || 0, at: performance.now() };
  }

  // MARK: Drawing

  /** Where the sound is at `now`, moving on from the last report while it plays. */
  position(now = performance.now()) {
    const p = this.player;
    let t = this.base.position;
    if (p.state === 'playing') {
      const rate = p.enableRate ? (p.rate || 1) : 1;
      t += Math.max(0, now - this.base.at) / 1000 * rate;
      if (p.duration > 0 && t > p.duration) t = p.numberOfLoops !== 0 ? t % p.duration : p.duration;
    }
    return t;
  }

  get animating() {
    return this.player.state === 'playing';
  }

  /** One animation frame: the seek bar, the time, the meters. Returns whether to keep going. */
  frame(now) {
    if (!this.dragging && !this.seeking) {
      const t = this.position(now);
      this.ui.seek.value = String(t);
      this.ui.seek.setAttribute('aria-valuetext', `${formatTime(t)} of ${formatTime(this.player.duration)}`);
      const text = formatTime(t);
      if (this.ui.current.textContent !== text) this.ui.current.textContent = text;
    }
    const metersMoving = this.player.meteringEnabled ? this.meters.frame(now) : false;
    return this.animating || metersMoving;
  }

  showValue(field, value) {
    const out = this.el.querySelector(`output[data-out="${field}"]`);
    if (field === 'volume') out.textContent = formatPercent(value);
    if (field === 'pan') out.textContent = formatPan(value);
    if (field === 'rate') out.textContent = formatRate(value);
  }

  /** Whether a control is in the user's hands (then server echoes do not move it). */
  busy(field) {
    return this.inflight[field] || (this.editing[field] && performance.now() - this.editing[field] < 800);
  }

  render() {
    const p = this.player;
    const { ui } = this;
    const title = this.title;

    if (ui.title.textContent !== title) {
      ui.title.textContent = title;
      ui.title.title = title;
      this.el.setAttribute('aria-label', `Player ${title}`);
      ui.select.setAttribute('aria-label', `Select ${title} to start together`);
      ui.del.setAttribute('aria-label', `Delete ${title}`);
      ui.seek.setAttribute('aria-label', `Position in ${title}`);
      this.meters.label = title;
    }
    const who = [p.metadata?.artist, p.metadata?.album].filter(Boolean).join(' — ');
    const subtitle = [who, describeSettings(p.settings)].filter(Boolean).join(' · ');
    if (ui.subtitle.textContent !== subtitle) ui.subtitle.textContent = subtitle;
    this.renderArtwork(p.metadata?.artworkURL);

    ui.state.textContent = p.state;
    ui.state.dataset.state = p.state;
    this.el.dataset.state = p.state;

    // Transport: offer what makes sense now; keep keyboard focus on a live button.
    const prepared = PREPARED.has(p.state);
    const running = RUNNING.has(p.state);
    const enabled = { prepare: !prepared, play: !running, pause: running, stop: prepared };
    const focused = document.activeElement;
    for (const [action, button] of Object.entries(ui.buttons)) button.disabled = !enabled[action];
    if (focused && focused.disabled && Object.values(ui.buttons).includes(focused)) {
      (running ? ui.buttons.pause : ui.buttons.play).focus();
    }

    const duration = p.duration || 0;
    ui.seek.max = String(duration > 0 ? duration : 1);
    ui.duration.textContent = formatTime(duration);
    if (!this.dragging && !this.seeking) ui.seek.value = String(this.position());

    for (const field of ['volume', 'pan', 'rate']) {
      if (!this.busy(field)) {
        ui[field].value = String(p[field]);
        this.showValue(field, p[field]);
      }
    }
    if (!this.busy('enableRate')) ui.enableRate.checked = !!p.enableRate;
    if (!this.busy('meteringEnabled')) ui.metering.checked = !!p.meteringEnabled;
    if (!this.busy('numberOfLoops') && document.activeElement !== ui.loops) ui.loops.value = String(p.numberOfLoops ?? 0);

    // Rate is only settable with enableRate, and enableRate only before prepare.
    ui.rate.disabled = !p.enableRate;
    ui.rateHint.textContent = p.enableRate
      ? ''
      : 'Rate is off: it needs “Enable rate”, which is set before prepare.';
    ui.enableRate.disabled = prepared;
    ui.optionsHint.textContent = prepared
      ? '“Enable rate” can only change before prepare: stop the player first.'
      : '';

    ui.meters.hidden = !p.meteringEnabled;
    this.el.classList.toggle('metering', !!p.meteringEnabled);
    if (!p.meteringEnabled) this.meters.reset();
  }

  /** The artwork is fetched with the token (an <img> cannot send it) and shown as a blob. */
  async renderArtwork(url) {
    if ((url || '') === this.artworkSource) return;
    this.artworkSource = url || '';
    if (this.artworkURL) URL.revokeObjectURL(this.artworkURL);
    this.artworkURL = '';
    this.ui.art.classList.remove('has-art');
    this.ui.art.style.backgroundImage = '';
    if (!url) return;
    try {
      const token = getToken();
      const response = await fetch(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
      if (!response.ok || url !== this.artworkSource) return;
      this.artworkURL = URL.createObjectURL(await response.blob());
      this.ui.art.style.backgroundImage = `url("${this.artworkURL}")`;
      this.ui.art.classList.add('has-art');
    } catch { /* no picture: the note icon stays */ }
  }

  get selected() { return this.ui.select.checked; }
  set selected(value) { this.ui.select.checked = value; }

  destroy() {
    if (this.artworkURL) URL.revokeObjectURL(this.artworkURL);
    this.el.remove();
  }
}
