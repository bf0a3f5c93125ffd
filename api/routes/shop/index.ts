// Shop and the SDK panels (docs/storage-shop-panel.md): supabase/migrations/*_shop_panel.sql.
import articles from './articles.js';
import panel from './panel.js';

export default [articles, panel];
