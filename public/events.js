// The server-sent event stream: one EventSource, reopened when its options change, and
// reconnected (with a growing pause) when the browser gives up on it. Every successful
// (re)connection calls `onOpen`, so the page re-fetches the state it may have missed.

import { eventsURL, api } from './api.js';

export const EVENT_TYPES = [
  'player.created', 'player.updated', 'player.deleted', 'player.state', 'player.progress',
  'player.meters', 'player.finished', 'player.decodeError', 'device.state',
];

export class EventFeed {
  /**
   * @param {object} handlers `onEvent(type, data, id)`, `onOpen()`, `onStatus(state, text)`
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.options = { progress: 0.25, meters: 0 };
    this.source = null;
    this.lastEventId = '';
    this.retryDelay = 1000;
    this.retryTimer = 0;
    this.everOpened = false;
  }

  /** Opens the stream (or reopens it with the current options). */
  connect() {
    clearTimeout(this.retryTimer);
    if (this.source) this.source.close();
    const query = { ...this.options };
    // A reopen (new options) continues where the last stream stopped.
    if (this.lastEventId) query.lastEventId = this.lastEventId;
    const source = new EventSource(eventsURL(query));
    this.source = source;
    this.handlers.onStatus(this.everOpened ? 'reconnecting' : 'connecting');

    source.addEventListener('open', () => {
      if (source !== this.source) return;
      this.everOpened = true;
      this.retryDelay = 1000;
      this.handlers.onStatus('live');
      this.handlers.onOpen();
    });
    source.addEventListener('error', () => {
      if (source !== this.source) return;
      if (source.readyState === EventSource.CONNECTING) {
        // The browser retries by itself (server restarting, network blip).
        this.handlers.onStatus('reconnecting');
        return;
      }
      // CLOSED: the browser gave up (an HTTP error such as 401, or a bad answer). Find out
      // why with an ordinary request — a 401 there opens the token prompt — and try again.
      source.close();
      this.handlers.onStatus('offline');
      api('GET', '/api/v1/device').then(
        () => this.scheduleReconnect(),
        (error) => { if (error.status !== 401) this.scheduleReconnect(); },
      );
    });
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (event) => {
        if (source !== this.source) return;
        if (event.lastEventId) this.lastEventId = event.lastEventId;
        let data;
        try { data = JSON.parse(event.data); } catch { return; }
        this.handlers.onEvent(type, data, event.lastEventId);
      });
    }
  }

  scheduleReconnect() {
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), this.retryDelay);
    this.retryDelay = Math.min(this.retryDelay * 2, 10000);
  }

  /** Changes the meter interval (seconds, 0 = off); reopens the stream only when it changes. */
  setMeters(interval) {
    if (this.options.meters === interval) return;
    this.options.meters = interval;
    if (this.source) this.connect();
  }

  close() {
    clearTimeout(this.retryTimer);
    if (this.source) this.source.close();
    this.source = null;
  }
}
