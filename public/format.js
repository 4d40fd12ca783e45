// Small formatting helpers shared by the page's modules.

/** 75.3 → "1:15"; with `millis`, "1:15.300". */
export function formatTime(seconds, millis = false) {
  if (!Number.isFinite(seconds) || seconds < 0) seconds = 0;
  const whole = Math.floor(seconds);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  let text = h > 0 ? `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}` : `${m}:${String(s).padStart(2, '0')}`;
  if (millis) text += '.' + String(Math.floor((seconds - whole) * 1000)).padStart(3, '0');
  return text;
}

/** -0.4 → "40% L", 0 → "Centre", 1 → "100% R". */
export function formatPan(pan) {
  if (Math.abs(pan) < 0.005) return 'Centre';
  return `${Math.round(Math.abs(pan) * 100)}% ${pan < 0 ? 'L' : 'R'}`;
}

export function formatPercent(v) { return `${Math.round(v * 100)}%`; }
export function formatRate(v) { return `${v.toFixed(2)}×`; }

export function formatDB(db) {
  if (!Number.isFinite(db) || db <= -159.5) return '−∞';
  return `${db.toFixed(1).replace('-', '−')}`;
}

export function formatHz(hz) {
  return hz % 1000 === 0 ? `${hz / 1000} kHz` : `${(hz / 1000).toFixed(1)} kHz`;
}

const LAYOUTS = { 1: 'mono', 2: 'stereo' };

/** "WAV · 48 kHz · stereo · 16-bit" from a player's settings. */
export function describeSettings(settings) {
  if (!settings) return '';
  const parts = [];
  if (settings.formatID) parts.push(settings.formatID.toUpperCase());
  if (settings.sampleRate) parts.push(formatHz(settings.sampleRate));
  parts.push(settings.channelLayout || LAYOUTS[settings.numberOfChannels] || `${settings.numberOfChannels} ch`);
  if (settings.bitDepth) parts.push(`${settings.bitDepth}-bit`);
  else if (settings.bitRate) parts.push(`${Math.round(settings.bitRate / 1000)} kbit/s`);
  return parts.join(' · ');
}

/** The last path component of a file:// URL, decoded. */
export function fileName(url) {
  if (!url) return '';
  const last = url.split('/').pop() || url;
  try { return decodeURIComponent(last); } catch { return last; }
}

/** A player id from a file name: "My Song (live).mp3" → "my-song-live". */
export function slugify(name) {
  const base = name.replace(/\.[^.]+$/, '').toLowerCase()
    .normalize('NFKD').replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9_-]+/g, '-').replace(/-{2,}/g, '-').replace(/^[-_]+|[-_]+$/g, '');
  return (base || 'player').slice(0, 56);
}

/** `slugify(name)`, made unique against `taken` by adding -2, -3, … */
export function uniqueID(name, taken) {
  const base = slugify(name);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const id = `${base}-${n}`;
    if (!taken.has(id)) return id;
  }
}

/** Creates an element: h('p', {class: 'x', text: 'hi'}, child…). */
export function h(tag, attributes = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') el.textContent = value;
    else if (key === 'class') el.className = value;
    else if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children) if (child) el.append(child);
  return el;
}

/** An inline icon from the page's sprite sheet. */
export function icon(name, extraClass = '') {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('class', `icon ${extraClass}`.trim());
  svg.setAttribute('aria-hidden', 'true');
  const use = document.createElementNS(ns, 'use');
  use.setAttribute('href', `#icon-${name}`);
  svg.append(use);
  return svg;
}

/** Shows an error (an ApiError or text) in an error slot; null hides it. */
export function showError(slot, error) {
  if (!slot) return;
  if (!error) { slot.hidden = true; slot.textContent = ''; return; }
  slot.textContent = typeof error === 'string' ? error : (error.message || String(error));
  slot.hidden = false;
}
