// Shop and the SDK panels (docs/storage-shop-panel.md): api.shop_articles, api.shop_acheter, api.panel_get (supabase/schema/functions/).
import articles from './articles.js';
import panel from './panel.js';
import acheter from './acheter.js';

export default [articles, acheter, panel];
