// The control page: keeps one card per player in step with the server (REST for the
// state, the SSE feed for changes), and wires the device panel, the library, the group
// start, the event log and the token prompt together.

import { api, onUnauthorized, getToken, setToken } from './api.js';
import { EventFeed } from './events.js';
import { PlayerCard } from './player-card.js';
import { Library } from './library.js';
import { DevicePanel } from './device.js';
import { EventLog } from './log.js';
import { showError } from './format.js';

const $ = (id) => document.getElementById(id);
const ACTIVE = new Set(['playing', 'paused', 'scheduled']);

const cards = new Map();
const reserved = new Set();
const playersEl = $('players');
const device = new DevicePanel($('device'));
const log = new EventLog($('log'), $('log-verbose'), $('log-clear'));

// MARK: Animation — one loop for every card, the meters and the device clock.

let frameRequested = false;
function requestFrame() {
  if (frameRequested) return;
  frameRequested = true;
  requestAnimationFrame(frame);
}
function frame(now) {
  frameRequested = false;
  let again = device.frame(now);
  for (const card of cards.values()) again = card.frame(now) || again;
  if (again) requestFrame();
}

// MARK: Cards

const cardContext = {
  requestFrame,
  selectionChanged: updateGroupStart,
  changed: stateChanged,
  removed: (card) => removeCard(card.id),
};

function addOrUpdate(player) {
  let card = cards.get(player.id);
  if (card) {
    card.update(player);
  } else {
    card = new PlayerCard(player, cardContext);
    cards.set(player.id, card);
    playersEl.append(card.el);
  }
  stateChanged();
  return card;
}

function removeCard(id) {
  const card = cards.get(id);
  if (!card) return;
  const hadFocus = card.el.contains(document.activeElement);
  const ids = [...cards.keys()];
  const next = cards.get(ids[ids.indexOf(id) + 1]) || cards.get(ids[ids.indexOf(id) - 1]);
  card.destroy();
  cards.delete(id);
  if (hadFocus) (next ? next.el : playersEl).focus();
  stateChanged();
}

/** After any change: counts, the group start, the meter subscription, the device clock. */
function stateChanged() {
  const list = [...cards.values()];
  $('empty-players').hidden = list.length > 0;
  $('player-count').textContent = list.length ? String(list.length) : '';
  feed.setMeters(list.some((c) => c.player.meteringEnabled) ? 0.1 : 0);
  device.setRunning(list.some((c) => ACTIVE.has(c.player.state)));
  updateGroupStart();
  requestFrame();
}

// MARK: Catching up with the server

let syncing = null;
async function resync() {
  if (syncing) return syncing;
  syncing = (async () => {
    try {
      const [list, dev] = await Promise.all([api('GET', '/api/v1/players'), api('GET', '/api/v1/device')]);
      const seen = new Set();
      for (const player of list.players || []) { addOrUpdate(player); seen.add(player.id); }
      for (const id of [...cards.keys()]) if (!seen.has(id)) removeCard(id);
      device.update(dev);
      showError($('device-error'), null);
      stateChanged();
      if (!libraryOpened) { libraryOpened = true; library.open(''); }
    } catch (error) {
      if (error.status !== 401) showError($('device-error'), error);
    } finally {
      syncing = null;
    }
  })();
  return syncing;
}

// MARK: Events

function handleEvent(type, data) {
  log.add(type, data);
  const card = data && cards.get(data.id);
  switch (type) {
    case 'player.created':
    case 'player.updated':
      addOrUpdate(data);
      break;
    case 'player.deleted':
      removeCard(data.id);
      break;
    case 'player.state':
      if (card) { card.applyState(data); stateChanged(); } else resync();
      device.sync(data.deviceCurrentTime);
      break;
    case 'player.progress':
      if (card) card.applyProgress(data);
      device.sync(data.deviceCurrentTime);
      requestFrame();
      break;
    case 'player.meters':
      if (card) card.applyMeters(data);
      break;
    case 'player.finished':
      if (card) {
        card.el.classList.add('flash');
        setTimeout(() => card.el.classList.remove('flash'), 900);
      }
      break;
    case 'player.decodeError':
      if (card) showError(card.errors.transport, `The sound could not be decoded: ${data.error}`);
      break;
    case 'device.state':
      device.update(data);
      break;
    default:
      break;
  }
}

const connection = $('connection');
const STATUS_TEXT = {
  connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…', offline: 'Offline',
};
function setStatus(state) {
  connection.dataset.state = state;
  connection.querySelector('.connection-text').textContent = STATUS_TEXT[state] || state;
  if (state === 'live') log.add('stream', null, 'connected to the event stream');
  else if (state === 'reconnecting') log.add('stream', null, 'connection lost; reconnecting…');
}

const feed = new EventFeed({
  onEvent: handleEvent,
  onOpen: resync,
  onStatus: setStatus,
});

// MARK: Library and uploads

let libraryOpened = false;
const library = new Library({
  takenIDs: () => new Set([...cards.keys(), ...reserved]),
  reserve: (id) => reserved.add(id),
  release: (id) => reserved.delete(id),
  added: (player) => { if (player && player.id) addOrUpdate(player); },
});

// MARK: Starting several players together

function selectedCards() { return [...cards.values()].filter((c) => c.selected); }

function updateGroupStart() {
  const n = selectedCards().length;
  $('group-play').disabled = n === 0;
  $('group-selected').textContent = n === 0
    ? 'Select players to start them together'
    : `${n} selected — start`;
}

$('group-start').addEventListener('submit', async (event) => {
  event.preventDefault();
  const chosen = selectedCards();
  const delay = Number($('group-delay').value || 0);
  const errorSlot = $('group-error');
  if (!(delay >= 0 && delay <= 60)) {
    showError(errorSlot, 'The delay is a number of seconds from 0 to 60.');
    return;
  }
  try {
    const answer = await api('POST', '/api/v1/play', { players: chosen.map((c) => c.id), delay });
    showError(errorSlot, null);
    for (const player of answer.players || []) addOrUpdate(player);
    log.add('play', answer, `${chosen.map((c) => c.id).join(', ')} start together at device time ${answer.startTime.toFixed(3)} s`);
  } catch (error) {
    showError(errorSlot, error);
  }
});

// MARK: The token prompt

const dialog = $('token-dialog');
const tokenButton = $('token-button');
function askForToken(error) {
  if (dialog.open) return;
  const input = $('token-input');
  input.value = getToken();
  showError($('token-error'), getToken() ? (error?.message || 'The token was not accepted.') : null);
  setStatus('offline');
  dialog.showModal();
  input.focus();
}
onUnauthorized(askForToken);
$('token-form').addEventListener('submit', () => {
  setToken($('token-input').value.trim());
  tokenButton.hidden = !getToken();
  feed.connect();
  resync();
});
dialog.addEventListener('cancel', (event) => event.preventDefault());
tokenButton.hidden = !getToken();
tokenButton.addEventListener('click', () => askForToken());

// MARK: Start

resync();
feed.connect();
