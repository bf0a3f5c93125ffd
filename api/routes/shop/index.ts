// Shop (contract section 7) and the SDK panels (section 10): supabase/migrations/*_shop_panel.sql.
import articles from './articles.js';
import panel from './panel.js';

export default [articles, panel];
