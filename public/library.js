// Adding players: browsing the media library (folders, breadcrumb) and uploading files
// (file input or drag-and-drop anywhere on the page) with a progress bar each.

import { api, upload } from './api.js';
import { h, icon, formatTime, showError, uniqueID } from './format.js';
import { uploadNames } from './player-card.js';

export class Library {
  /**
   * @param {object} ctx `{ takenIDs(): Set, added(player) }`
   */
  constructor(ctx) {
    this.ctx = ctx;
    this.path = '';
    this.list = document.getElementById('library');
    this.breadcrumb = document.getElementById('breadcrumb');
    this.error = document.getElementById('library-error');
    this.uploads = document.getElementById('uploads');
    this.fileInput = document.getElementById('file-input');
    this.dropzone = document.getElementById('dropzone');
    this.wireUploads();
  }

  // MARK: Library

  async open(path = this.path) {
    this.list.setAttribute('aria-busy', 'true');
    try {
      const listing = await api('GET', `/api/v1/media?path=${encodeURIComponent(path)}`);
      this.path = listing.path || '';
      this.render(listing);
      showError(this.error, null);
    } catch (error) {
      showError(this.error, error);
    } finally {
      this.list.removeAttribute('aria-busy');
    }
  }

  renderBreadcrumb() {
    const parts = this.path ? this.path.split('/') : [];
    const crumbs = [{ name: 'Library', path: '' }];
    parts.forEach((name, i) => crumbs.push({ name, path: parts.slice(0, i + 1).join('/') }));
    const ol = h('ol');
    crumbs.forEach((crumb, i) => {
      const last = i === crumbs.length - 1;
      ol.append(h('li', {}, last
        ? h('span', { 'aria-current': 'location', text: crumb.name })
        : h('button', { type: 'button', class: 'link', text: crumb.name, onclick: () => this.open(crumb.path) })));
    });
    this.breadcrumb.replaceChildren(ol);
  }

  render(listing) {
    this.renderBreadcrumb();
    const entries = listing.entries || [];
    if (entries.length === 0) {
      this.list.replaceChildren(h('li', {
        class: 'empty',
        text: this.path ? 'No audio files in this folder.' : 'No media folders. Start Tonearm with --media-root DIR.',
      }));
      return;
    }
    this.list.replaceChildren(...entries.map((entry) => this.entryRow(entry)));
  }

  entryRow(entry) {
    if (entry.type === 'folder') {
      return h('li', { class: 'entry folder' },
        h('button', { type: 'button', class: 'entry-open', onclick: () => this.open(entry.path) },
          icon('folder'), h('span', { class: 'entry-name', text: entry.name })));
    }
    const details = [
      entry.title && entry.artist ? `${entry.artist} — ${entry.title}` : entry.title,
      (entry.formatID || '').toUpperCase(),
      Number.isFinite(entry.duration) ? formatTime(entry.duration) : '',
    ].filter(Boolean).join(' · ');
    const error = h('p', { class: 'error', role: 'alert', hidden: true });
    const button = h('button', {
      type: 'button', class: 'icon-button add', 'aria-label': `Add a player for ${entry.name}`, title: 'Add a player',
    }, icon('plus'));
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        const id = uniqueID(entry.name, this.ctx.takenIDs());
        const player = await api('POST', '/api/v1/players', { url: entry.url || entry.path, id });
        showError(error, null);
        this.ctx.added(player);
      } catch (e) {
        showError(error, e);
      } finally {
        button.disabled = false;
      }
    });
    return h('li', { class: 'entry file' },
      icon('note'),
      h('div', { class: 'entry-text' }, h('span', { class: 'entry-name', text: entry.name, title: entry.name }),
        h('span', { class: 'entry-details', text: details })),
      button, error);
  }

  // MARK: Uploads

  wireUploads() {
    this.fileInput.addEventListener('change', () => {
      this.uploadFiles([...this.fileInput.files]);
      this.fileInput.value = '';
    });
    // Drop anywhere on the page; the drop zone lights up while files are dragged over it.
    let depth = 0;
    const hasFiles = (event) => [...(event.dataTransfer?.types || [])].includes('Files');
    window.addEventListener('dragenter', (event) => {
      if (!hasFiles(event)) return;
      depth++;
      document.body.classList.add('dragging-files');
    });
    window.addEventListener('dragleave', () => {
      depth = Math.max(0, depth - 1);
      if (depth === 0) document.body.classList.remove('dragging-files');
    });
    window.addEventListener('dragover', (event) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'copy';
    });
    window.addEventListener('drop', (event) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      depth = 0;
      document.body.classList.remove('dragging-files');
      this.uploadFiles([...event.dataTransfer.files]);
    });
  }

  uploadFiles(files) {
    for (const file of files) this.uploadOne(file);
  }

  async uploadOne(file) {
    const id = uniqueID(file.name, this.ctx.takenIDs());
    this.ctx.reserve(id);
    const bar = h('progress', { max: '1', value: '0', 'aria-label': `Uploading ${file.name}` });
    const percent = h('span', { class: 'upload-percent', text: '0%' });
    const message = h('p', { class: 'error', role: 'alert', hidden: true });
    const dismiss = h('button', { type: 'button', class: 'icon-button small', 'aria-label': `Dismiss ${file.name}`, hidden: true, text: '×' });
    const row = h('li', { class: 'upload', 'data-state': 'uploading' },
      h('div', { class: 'upload-line' }, h('span', { class: 'upload-name', text: file.name, title: file.name }), percent, dismiss),
      bar, message);
    dismiss.addEventListener('click', () => row.remove());
    this.uploads.prepend(row);
    try {
      uploadNames.set(id, file.name);
      const player = await upload(file, id, (fraction) => {
        bar.value = fraction;
        percent.textContent = fraction >= 1 ? 'decoding…' : `${Math.round(fraction * 100)}%`;
      });
      row.dataset.state = 'done';
      percent.textContent = 'added';
      this.ctx.added(player);
      setTimeout(() => row.remove(), 2500);
    } catch (error) {
      uploadNames.remove(id);
      row.dataset.state = 'failed';
      percent.textContent = 'failed';
      showError(message, error);
      dismiss.hidden = false;
    } finally {
      this.ctx.release(id);
    }
  }
}
