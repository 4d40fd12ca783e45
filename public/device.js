// The device panel: output, format, latency, underruns and the device clock, which runs
// locally between the reports while anything plays (SPEC 2.1: it is 0 when nothing does).

import { formatTime, formatHz } from './format.js';

export class DevicePanel {
  constructor(root) {
    this.root = root;
    this.fields = Object.fromEntries([...root.querySelectorAll('[data-field]')].map((el) => [el.dataset.field, el]));
    this.base = { time: 0, at: performance.now() };
    this.running = false;
    this.device = null;
  }

  set(field, text) {
    const el = this.fields[field];
    if (el && el.textContent !== text) el.textContent = text;
  }

  /** A device object (GET /api/v1/device or device.state). */
  update(device) {
    this.device = device;
    const output = device.output || {};
    this.set('output', [output.kind, output.name].filter(Boolean).join(': ') || '—');
    this.fields.output.title = this.fields.output.textContent;
    this.set('state', device.state === 'running' ? 'Running' : `Failed${device.error ? `: ${device.error}` : ''}`);
    this.fields.state.dataset.state = device.state;
    this.set('sampleRate', device.sampleRate ? formatHz(device.sampleRate) : '—');
    this.set('channels', String(device.channels ?? '—'));
    const latency = Number(device.outputLatency);
    this.set('latency', Number.isFinite(latency) ? `${(latency * 1000).toFixed(1)} ms` : '—');
    this.fields.latency.title = device.periodFrames ? `periods of ${device.periodFrames} frames` : '';
    this.set('xruns', String(device.xruns ?? 0));
    this.fields.xruns.dataset.bad = device.xruns > 0 ? 'true' : 'false';
    this.sync(device.deviceCurrentTime);
  }

  /** A fresh reading of the device time (from any event that carries it). */
  sync(time) {
    if (typeof time === 'number' && Number.isFinite(time)) this.base = { time, at: performance.now() };
  }

  setRunning(running) {
    if (running === this.running) return;
    this.running = running;
    if (!running) this.base = { time: 0, at: performance.now() };
    else this.base.at = performance.now();
  }

  frame(now) {
    const t = this.running ? this.base.time + Math.max(0, now - this.base.at) / 1000 : this.base.time;
    this.set('time', formatTime(t, true));
    return this.running;
  }
}
