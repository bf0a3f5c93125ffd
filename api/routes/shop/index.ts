// Shop and the SDK panels (docs/storage-shop-panel.md): api.shop_articles, api.panel_get (supabase/schema/functions/).
import articles from './articles.js';
import panel from './panel.js';

export default [articles, panel];
