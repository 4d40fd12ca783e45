// The event log: the last 200 events, newest first. Progress and meter events are frequent,
// so they are shown only when asked for.

import { h } from './format.js';

const LIMIT = 200;
const NOISY = new Set(['player.progress', 'player.meters']);

function summary(type, data) {
  if (!data || typeof data !== 'object') return '';
  switch (type) {
    case 'player.state': return `${data.id} → ${data.state} at ${Number(data.currentTime ?? 0).toFixed(2)} s`;
    case 'player.progress': return `${data.id} ${Number(data.currentTime).toFixed(2)} / ${Number(data.duration).toFixed(2)} s`;
    case 'player.meters': return `${data.id} ${(data.channels || []).map((c) => `${c.peakPower.toFixed(1)} dB`).join(' ')}`;
    case 'player.finished': return `${data.id} ${data.successfully ? 'finished' : 'stopped: decoding failed'}`;
    case 'player.decodeError': return `${data.id}: ${data.error}`;
    case 'player.deleted': return String(data.id);
    case 'player.created':
    case 'player.updated': return `${data.id} (${data.state}, volume ${Math.round((data.volume ?? 0) * 100)}%)`;
    case 'device.state': return `${data.state}, ${data.xruns ?? 0} underruns`;
    default: return JSON.stringify(data).slice(0, 120);
  }
}

export class EventLog {
  constructor(list, verboseToggle, clearButton) {
    this.list = list;
    this.verbose = verboseToggle;
    clearButton.addEventListener('click', () => this.list.replaceChildren());
  }

  add(type, data, note = '') {
    if (NOISY.has(type) && !this.verbose.checked) return;
    const time = new Date();
    const stamp = time.toLocaleTimeString([], { hour12: false }) + '.' + String(time.getMilliseconds()).padStart(3, '0');
    const kind = type.split('.')[0];
    const item = h('li', { class: `log-item ${kind}`, 'data-type': type },
      h('time', { datetime: time.toISOString(), text: stamp }),
      h('span', { class: 'log-type', text: type }),
      h('span', { class: 'log-text', text: note || summary(type, data) }));
    this.list.prepend(item);
    while (this.list.childElementCount > LIMIT) this.list.lastElementChild.remove();
  }
}
