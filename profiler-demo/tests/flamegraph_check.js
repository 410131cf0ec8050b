// flamegraph_check.js FILE.html - runs the flame graph page's script under node with a
// minimal stand-in for the DOM and canvas: builds the tree, draws, searches, zooms.
// Prints "frames drawn N, matched X%" and exits non-zero on any error.
const fs = require('fs');
const html = fs.readFileSync(process.argv[2], 'utf8');
const script = html.split('<script>')[1].split('</script>')[0];
const elems = {};
let rects = 0;
const ctx = { fillRect() { rects++; }, fillText() {}, set fillStyle(v) {}, set font(v) {},
              set textBaseline(v) {} };
function el(id) {
  return elems[id] || (elems[id] = { id, style: {}, textContent: '', innerHTML: '', value: '',
    getContext: () => ctx, getBoundingClientRect: () => ({ left: 0, top: 0 }) });
}
global.document = { getElementById: el, body: { clientWidth: 1200 } };
global.window = { innerWidth: 800, innerHeight: 600, scrollTo() {} };
(0, eval)(script + '\nglobal.__fg = { root: root, draw: draw, name: name, share: share, EV: EV };');
const fg = global.__fg;
if (!(fg.root.t > 0)) throw new Error('empty tree');
rects = 0;
fg.draw();
const drawn = rects;
el('q').value = process.argv[3] || 'main';
el('q').oninput.call(el('q'));
const matched = el('match').textContent;
// Click the widest child of the root: zoom must redraw without error.
const canvas = el('c');
// Icicle view: the root is the top row, its children the second.
canvas.onclick({ clientX: 600, clientY: 16 + 4 });
if (!el("mode").textContent) throw new Error("no view switch");
el("mode").onclick(); fg.draw();
console.log('frames drawn ' + drawn + ', total ' + fg.root.t + ', ' + matched);
// With event roots, each event's frame is 100% of itself, and a frame's share is of its
// event's samples.
if (fg.EV) {
  const parts = fg.root.k.map(n => fg.name(n) + ' ' + fg.share(n) +
    (n.k.length ? ' (first frame ' + fg.share(n.k[0]) + ')' : ''));
  console.log('event shares: ' + parts.join('; '));
}
