// File storage (docs/storage-shop-panel.md): api.storage_* in supabase/migrations/*_storage.sql.
import upload from './upload.js';
import list from './list.js';
import get from './get.js';
import remove from './delete.js';

export default [upload, list, get, remove];
