// The panels' stylesheet. Every colour, the font and the radius come from the
// --manette-* custom properties (GET /panel's `theme`); the fallbacks are the defaults of
// manette.panel_defaults(), so a panel looks right before the theme arrives.
export const PANEL_CSS = `
:host {
  display: block;
  box-sizing: border-box;
  inline-size: 100%;
  max-inline-size: 26rem;
  font-family: var(--manette-police, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif);
  font-size: 1rem;
  line-height: 1.4;
  color: var(--manette-couleur-texte, #2d3436);
}
:host([hidden]) { display: none; }
*, *::before, *::after { box-sizing: border-box; }
[hidden] { display: none !important; }
.card {
  background: var(--manette-couleur-fond, #ffffff);
  border: 1px solid var(--manette-couleur-surface, #f5f6fa);
  border-radius: var(--manette-rayon-bordure, 8px);
  box-shadow: 0 2px 12px rgb(0 0 0 / 0.08);
  padding: 1.25rem;
  display: flex;
  flex-direction: column;
  gap: 0.75rem;
}
.logo { display: block; max-block-size: 3rem; max-inline-size: 100%; align-self: center; }
h2 { margin: 0; font-size: 1.25rem; line-height: 1.2; }
p { margin: 0; }
.position { color: var(--manette-couleur-texte, #2d3436); font-weight: 600; }
h2:focus { outline: none; }
form { display: flex; flex-direction: column; gap: 0.75rem; margin: 0; }
.field { display: flex; flex-direction: column; gap: 0.25rem; }
label { font-size: 0.875rem; font-weight: 600; }
input {
  font: inherit;
  inline-size: 100%;
  min-inline-size: 0;
  padding: 0.6rem 0.75rem;
  color: var(--manette-couleur-texte, #2d3436);
  background: var(--manette-couleur-surface, #f5f6fa);
  border: 1px solid var(--manette-couleur-texte-doux, #636e72);
  border-radius: var(--manette-rayon-bordure, 8px);
}
input[aria-invalid="true"] { border-color: var(--manette-couleur-erreur, #d63031); }
.field-error { color: var(--manette-couleur-erreur, #d63031); font-size: 0.875rem; margin: 0; }
button {
  font: inherit;
  cursor: pointer;
  min-block-size: 2.75rem;
  padding: 0.6rem 1rem;
  border-radius: var(--manette-rayon-bordure, 8px);
  border: 2px solid var(--manette-couleur-primaire, #6c5ce7);
}
button.primary {
  background: var(--manette-couleur-primaire, #6c5ce7);
  color: var(--manette-couleur-texte-bouton, #ffffff);
  font-weight: 600;
}
button.secondary {
  background: transparent;
  color: var(--manette-couleur-texte, #2d3436);
}
button.link {
  background: none;
  border: none;
  min-block-size: 0;
  padding: 0.25rem 0;
  color: var(--manette-couleur-primaire, #6c5ce7);
  text-decoration: underline;
  align-self: flex-start;
  text-align: start;
}
button[aria-disabled="true"] { opacity: 0.6; cursor: progress; }
:focus-visible {
  outline: 3px solid var(--manette-couleur-secondaire, #a29bfe);
  outline-offset: 2px;
}
input:focus-visible { outline-offset: 0; }
.error {
  margin: 0;
  color: var(--manette-couleur-erreur, #d63031);
  font-weight: 600;
}
.error:empty, .status:empty { display: none; }
.status { margin: 0; color: var(--manette-couleur-texte-doux, #636e72); }
.success { color: var(--manette-couleur-succes, #00b894); font-weight: 600; margin: 0; }
/* <manette-login>'s announcements ("code sent", "password changed", "account linked"): the
   theme's colour as a mark beside text in the text colour, readable whatever the colour. */
.notice {
  color: var(--manette-couleur-texte, #2d3436);
  background: var(--manette-couleur-surface, #f5f6fa);
  border-inline-start: 4px solid var(--manette-couleur-secondaire, #a29bfe);
  border-radius: var(--manette-rayon-bordure, 8px);
  padding: 0.5rem 0.75rem;
  overflow-wrap: anywhere;
}
.notice.success { border-inline-start-color: var(--manette-couleur-succes, #00b894); font-weight: 600; }
.notice:empty { display: none; }
input#code { letter-spacing: 0.2em; font-variant-numeric: tabular-nums; }
.code {
  font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
  font-size: 1.5rem;
  letter-spacing: 0.2em;
}
.player { display: flex; align-items: center; gap: 0.75rem; margin: 0; overflow-wrap: anywhere; }
.avatar { inline-size: 2.5rem; block-size: 2.5rem; border-radius: 50%; object-fit: cover; flex: none; }
.separator {
  display: flex; align-items: center; gap: 0.5rem;
  color: var(--manette-couleur-texte-doux, #636e72); font-size: 0.875rem;
}
.separator::before, .separator::after {
  content: ""; flex: 1; border-block-start: 1px solid var(--manette-couleur-texte-doux, #636e72); opacity: 0.4;
}
.google { display: flex; justify-content: center; min-block-size: 2.75rem; }
.row { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
.row > button { flex: 1 1 8rem; }
.spinner {
  inline-size: 1rem; block-size: 1rem; flex: none;
  border: 2px solid var(--manette-couleur-secondaire, #a29bfe);
  border-block-start-color: var(--manette-couleur-primaire, #6c5ce7);
  border-radius: 50%;
  animation: spin 0.9s linear infinite;
}
@keyframes spin { to { transform: rotate(1turn); } }
@media (prefers-reduced-motion: reduce) { .spinner { animation: none; } }
.sr-only {
  position: absolute; inline-size: 1px; block-size: 1px; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap;
}
@media (max-width: 400px) {
  .card { padding: 1rem; }
}
/* <manette-boutique>: wallet, articles, inventory. */
h3 { margin: 0 0 0.35rem; font-size: 0.95rem; color: var(--manette-couleur-texte-doux, #636e72); font-weight: 600; }
.muted { color: var(--manette-couleur-texte-doux, #636e72); margin: 0; }
ul.wallet, ul.articles, ul.items { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 0.4rem; }
ul.wallet li, ul.items li {
  display: flex; justify-content: space-between; gap: 0.5rem; align-items: baseline;
  padding: 0.35rem 0.6rem; border-radius: var(--manette-rayon-bordure, 8px);
  background: var(--manette-couleur-surface, #f5f6fa); overflow-wrap: anywhere;
}
.amount { font-variant-numeric: tabular-nums; white-space: nowrap; }
ul.wallet .amount { font-size: 1.15rem; }
li.article {
  display: flex; flex-wrap: wrap; gap: 0.5rem 0.75rem; align-items: center;
  padding: 0.6rem; border-radius: var(--manette-rayon-bordure, 8px);
  border: 1px solid var(--manette-couleur-surface, #f5f6fa);
  background: var(--manette-couleur-surface, #f5f6fa);
}
.article-image { inline-size: 3rem; block-size: 3rem; object-fit: contain; flex: none; border-radius: 6px; }
.info { flex: 1 1 9rem; min-inline-size: 0; display: flex; flex-direction: column; gap: 0.15rem; overflow-wrap: anywhere; }
.description, .grants { font-size: 0.875rem; color: var(--manette-couleur-texte-doux, #636e72); }
.buy-box { display: flex; align-items: center; gap: 0.6rem; flex: 0 1 auto; margin-inline-start: auto; }
.price { font-weight: 700; white-space: nowrap; font-variant-numeric: tabular-nums; }
button.buy { min-block-size: 2.5rem; padding: 0.4rem 0.9rem; }
`;
