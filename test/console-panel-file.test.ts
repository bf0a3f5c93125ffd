// The console's panel save edits the game file where the panel's values changed, and
// nowhere else: a studio's layout (one-line objects, tabs, key order) survives a save.
import { describe, expect, it } from 'vitest';
import { withPanel } from '../console/server/routes/panel.js';

const FILE = `{
\t"jeu": "x",
\t"panel": {
\t\t"theme": { "couleur_primaire": "#111111", "police": "Georgia, serif" },
\t\t"textes": {"connexion_titre": "Salut"}
\t},
\t"nom": "X"
}
`;

describe('withPanel: the console writes only what changed in the panel', () => {
  it('changes one value in place, the rest byte for byte', () => {
    const out = withPanel(FILE, { theme: { couleur_primaire: '#222222', police: 'Georgia, serif' }, textes: { connexion_titre: 'Salut' } })!;
    expect(out).toBe(FILE.replace('#111111', '#222222'));
  });

  it('adds and removes keys where they belong, in the file\'s indentation', () => {
    const out = withPanel(FILE, { theme: { couleur_primaire: '#111111' }, textes: { connexion_titre: 'Salut', connexion_bouton: 'Go' } })!;
    expect(JSON.parse(out).panel).toEqual({ theme: { couleur_primaire: '#111111' }, textes: { connexion_titre: 'Salut', connexion_bouton: 'Go' } });
    expect(out.startsWith('{\n\t"jeu": "x",\n\t"panel": {\n')).toBe(true);
    expect(out.endsWith('\t},\n\t"nom": "X"\n}\n')).toBe(true);
  });

  it('adds a panel to a file without one, and leaves a file that is not an object alone', () => {
    const out = withPanel('{\n  "jeu": "x"\n}\n', { theme: { police: 'Inter' } })!;
    expect(JSON.parse(out)).toEqual({ jeu: 'x', panel: { theme: { police: 'Inter' } } });
    expect(out.startsWith('{\n  "jeu": "x",\n  "panel": ')).toBe(true);
    expect(withPanel('[1, 2]', { theme: {} })).toBeUndefined();
    expect(withPanel('{"jeu": ', { theme: {} })).toBeUndefined();
  });
});
