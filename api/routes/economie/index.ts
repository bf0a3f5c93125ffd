// The economy (docs/economy.md): api.economie_* (supabase/schema/functions/); POST /shop/acheter is in shop/.
import portefeuille from './portefeuille.js';
import inventaire from './inventaire.js';
import utiliser from './utiliser.js';
import historique from './historique.js';

export default [portefeuille, inventaire, utiliser, historique];
