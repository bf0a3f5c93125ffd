// Shop (contract section 7) and the SDK panels (section 10): api.shop_articles, api.panel_get (supabase/schema/functions/).
import articles from './articles.js';
import panel from './panel.js';

export default [articles, panel];
