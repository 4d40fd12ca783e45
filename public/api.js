// The HTTP API client: the bearer token, JSON in and out, problem+json → a readable error.

const TOKEN_KEY = 'tonearm.token';

/** An API failure with a sentence a person can read (`message`), from the problem's detail. */
export class ApiError extends Error {
  constructor(status, title, detail, type) {
    super(detail || title || `The server answered ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.title = title || '';
    this.detail = detail || '';
    this.type = type || '';
  }
}

let unauthorizedHandler = () => {};

/** Called with the error whenever the server answers 401 (the page shows the token prompt). */
export function onUnauthorized(handler) { unauthorizedHandler = handler; }

export function getToken() { return localStorage.getItem(TOKEN_KEY) || ''; }
export function setToken(token) {
  if (token) localStorage.setItem(TOKEN_KEY, token); else localStorage.removeItem(TOKEN_KEY);
}

function authHeaders() {
  const token = getToken();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/** Turns a failed response into an ApiError, reading a problem+json body when there is one. */
async function errorFrom(response) {
  let problem = null;
  try {
    const text = await response.text();
    if (text) problem = JSON.parse(text);
  } catch { /* not JSON: fall back to the status line */ }
  return new ApiError(response.status, problem?.title || response.statusText, problem?.detail, problem?.type);
}

/**
 * Calls the API. `body` (an object) is sent as JSON; state-changing requests always carry
 * `Content-Type: application/json`, even without a body (the server refuses others with 415).
 * Resolves to the parsed JSON (or null for an empty answer); rejects with an ApiError.
 */
export async function api(method, path, body) {
  const headers = { Accept: 'application/json', ...authHeaders() };
  const init = { method, headers, cache: 'no-store' };
  if (method !== 'GET' && method !== 'HEAD' && method !== 'DELETE') {
    headers['Content-Type'] = 'application/json';
    init.body = body === undefined ? '' : JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, 'Offline', 'The server cannot be reached. Is Tonearm running?');
  }
  if (!response.ok) {
    const error = await errorFrom(response);
    if (response.status === 401) unauthorizedHandler(error);
    throw error;
  }
  if (response.status === 204) return null;
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}

/**
 * Uploads a file's bytes as a new player (POST /api/v1/players?id=…), reporting progress
 * (0…1) through `onProgress`. XMLHttpRequest, because fetch cannot report upload progress.
 */
export function upload(file, id, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const query = id ? `?id=${encodeURIComponent(id)}` : '';
    xhr.open('POST', `/api/v1/players${query}`);
    const type = file.type && file.type.startsWith('audio/') ? file.type : 'application/octet-stream';
    xhr.setRequestHeader('Content-Type', type);
    xhr.setRequestHeader('Accept', 'application/json');
    for (const [name, value] of Object.entries(authHeaders())) xhr.setRequestHeader(name, value);
    xhr.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    });
    xhr.addEventListener('load', () => {
      let body = null;
      try { body = xhr.responseText ? JSON.parse(xhr.responseText) : null; } catch { /* ignore */ }
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve(body);
      } else {
        const error = new ApiError(xhr.status, body?.title || xhr.statusText, body?.detail, body?.type);
        if (xhr.status === 401) unauthorizedHandler(error);
        reject(error);
      }
    });
    xhr.addEventListener('error', () => reject(new ApiError(0, 'Offline', 'The upload failed: the server cannot be reached.')));
    xhr.addEventListener('abort', () => reject(new ApiError(0, 'Aborted', 'The upload was cancelled.')));
    xhr.send(file);
  });
}

/** The event stream URL with its options and, when set, the token (EventSource cannot send headers). */
export function eventsURL(options) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(options)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const token = getToken();
  if (token) params.set('access_token', token);
  return `/api/v1/events?${params}`;
}
