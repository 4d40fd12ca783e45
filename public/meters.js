// Level meters: one bar per channel showing average (solid) and peak (lighter) power in
// dBFS, with a peak-hold tick. Readings arrive ~10 times a second from SSE; the bars move
// smoothly between them (instant rise, steady fall) on animation frames.

import { h, formatDB } from './format.js';

const FLOOR_DB = -60;       // the left edge of the scale
const FALL_DB_PER_S = 30;   // how fast a bar falls when the level drops
const HOLD_S = 1.5;         // how long the peak-hold tick stays before falling
const HOLD_FALL_DB_PER_S = 15;

function fraction(db) {
  if (!Number.isFinite(db)) return 0;
  return Math.min(1, Math.max(0, (db - FLOOR_DB) / -FLOOR_DB));
}

const CHANNEL_NAMES = { 1: ['Mono'], 2: ['L', 'R'] };

export class Meters {
  constructor(container, label) {
    this.container = container;
    this.label = label;
    this.channels = [];
    this.lastFrame = 0;
  }

  /** Builds one bar per channel (only when the count changes). */
  ensureChannels(count) {
    if (this.channels.length === count) return;
    this.container.replaceChildren();
    const names = CHANNEL_NAMES[count] || Array.from({ length: count }, (_, i) => String(i + 1));
    this.channels = names.map((name) => {
      const avg = h('div', { class: 'meter-fill avg' });
      const peak = h('div', { class: 'meter-fill peak' });
      const hold = h('div', { class: 'meter-hold' });
      const value = h('span', { class: 'meter-value', text: '−∞' });
      const track = h('div', { class: 'meter-track' }, peak, avg, hold);
      const row = h('div', {
        class: 'meter', role: 'meter', 'aria-label': `${this.label}, channel ${name}, peak level`,
        'aria-valuemin': String(FLOOR_DB), 'aria-valuemax': '0', 'aria-valuenow': String(FLOOR_DB),
        'data-peak-db': '-160', 'data-average-db': '-160',
      }, h('span', { class: 'meter-name', text: name }), track, value);
      this.container.append(row);
      return { row, avg, peak, hold, value, target: { avg: -160, peak: -160 }, shown: { avg: -160, peak: -160 },
               holdDB: -160, holdAt: 0, text: '' };
    });
    const scale = h('div', { class: 'meter-scale', 'aria-hidden': 'true' });
    for (const db of [-60, -48, -36, -24, -12, -6, 0]) {
      scale.append(h('span', { style: `left:${fraction(db) * 100}%`, text: String(db) }));
    }
    this.container.append(scale);
  }

  /** A reading: `[{averagePower, peakPower}, …]` in dBFS. */
  update(channels, now = performance.now()) {
    this.ensureChannels(channels.length);
    channels.forEach((reading, i) => {
      const ch = this.channels[i];
      ch.target.avg = reading.averagePower;
      ch.target.peak = reading.peakPower;
      if (reading.peakPower >= ch.holdDB) { ch.holdDB = reading.peakPower; ch.holdAt = now; }
      ch.row.dataset.peakDb = reading.peakPower.toFixed(1);
      ch.row.dataset.averageDb = reading.averagePower.toFixed(1);
      ch.row.setAttribute('aria-valuenow', Math.max(FLOOR_DB, reading.peakPower).toFixed(0));
    });
  }

  /** Silence (metering off or the player stopped): bars fall away. */
  reset() {
    for (const ch of this.channels) { ch.target.avg = -160; ch.target.peak = -160; }
  }

  /** Advances the animation; returns whether anything is still moving. */
  frame(now) {
    const dt = this.lastFrame ? Math.min(0.1, (now - this.lastFrame) / 1000) : 0;
    this.lastFrame = now;
    let moving = false;
    for (const ch of this.channels) {
      for (const key of ['avg', 'peak']) {
        const target = Math.max(ch.target[key], FLOOR_DB - 1);
        const shown = Math.max(ch.shown[key], FLOOR_DB - 1);
        ch.shown[key] = target >= shown ? target : Math.max(target, shown - FALL_DB_PER_S * dt);
        if (ch.shown[key] !== target) moving = true;
      }
      if (now - ch.holdAt > HOLD_S * 1000) {
        ch.holdDB = Math.max(ch.shown.peak, ch.holdDB - HOLD_FALL_DB_PER_S * dt);
        if (ch.holdDB > FLOOR_DB && ch.holdDB > ch.shown.peak) moving = true;
      }
      ch.avg.style.clipPath = `inset(0 ${(100 - fraction(ch.shown.avg) * 100).toFixed(2)}% 0 0)`;
      ch.peak.style.clipPath = `inset(0 ${(100 - fraction(ch.shown.peak) * 100).toFixed(2)}% 0 0)`;
      const holdFraction = fraction(ch.holdDB);
      ch.hold.style.left = `${(holdFraction * 100).toFixed(2)}%`;
      ch.hold.style.opacity = holdFraction > 0 ? '1' : '0';
      ch.hold.classList.toggle('clip', ch.holdDB >= -0.1);
      const text = formatDB(ch.holdDB);
      if (text !== ch.text) { ch.value.textContent = text; ch.text = text; }
    }
    if (!moving) this.lastFrame = 0;
    return moving;
  }
}
