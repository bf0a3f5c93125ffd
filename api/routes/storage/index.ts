// File storage (docs/storage-shop-panel.md): api.storage_* (supabase/schema/functions/api.storage_*.sql).
import upload from './upload.js';
import list from './list.js';
import get from './get.js';
import remove from './delete.js';

export default [upload, list, get, remove];
