// flamegraph_browser.js - checks run inside a real browser on a flame graph page (the test
// appends this script to a copy of the page; test_browser.sh). Uses the page's globals
// (root, boxes, COL, KIND) and real events; writes one line "SELFTEST ok|FAIL ..." into
// a pre element with id selftest, for --dump-dom.
(function () {
  var out = [], bad = 0;
  function t(ok, what) { out.push((ok ? 'ok ' : 'FAIL ') + what); if (!ok) bad++; }
  var cv = document.getElementById('c'), r = cv.getBoundingClientRect();
  var g2 = cv.getContext('2d');
  function px(x, y) { var d = g2.getImageData(Math.floor(x), Math.floor(y), 1, 1).data; return [d[0], d[1], d[2]]; }
  function rgb(s) { var m = s.match(/\d+/g); return [+m[0], +m[1], +m[2]]; }
  function hex(s) { return [parseInt(s.substr(1, 2), 16), parseInt(s.substr(3, 2), 16), parseInt(s.substr(5, 2), 16)]; }
  function same(a, b) { return Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) + Math.abs(a[2] - b[2]) < 8; }
  function boxOf(n) { for (var i = 0; i < boxes.length; i++) if (boxes[i][3] === n) return boxes[i]; return null; }
  var vh = window.innerHeight, vw = window.innerWidth;
  // 1. The first viewport shows the graph: the root row and frames below it.
  var rb = boxOf(root), inView = 0;
  for (var i = 0; i < boxes.length; i++) if (r.top + boxes[i][1] + 16 <= vh && boxes[i][2] >= 1) inView++;
  t(rb && r.top + rb[1] + 16 <= vh, 'root row visible without scrolling (top ' + (rb ? r.top + rb[1] : '?') + ' px of ' + vh + ')');
  t(inView >= 10, inView + ' frames drawn in the first ' + vw + 'x' + vh + ' viewport');
  t(cv.width <= vw, 'canvas fits the window width (' + cv.width + ' <= ' + vw + ')');
  // 2. Colours match the legend: the pixel in a frame's middle is its type's legend colour.
  var spans = document.querySelectorAll('#legend .lg'), checked = 0, wrong = 0;
  for (var i = 0; i < boxes.length && checked < 40; i++) {
    var b = boxes[i], n = b[3];
    if (n.f < 0 || b[2] < 6) continue;
    var leg = rgb(getComputedStyle(spans[n.c]).backgroundColor);
    var p = px(b[0] + 2, b[1] + 2);
    checked++; if (!same(p, leg)) wrong++;
  }
  t(checked >= 5 && wrong == 0, 'frame colours match the legend (' + checked + ' frames, ' + wrong + ' wrong)');
  // 3. Labels keep the method: a narrow long name is shortened from the package side.
  t(fit('com.sun.tools.javac.main.JavaCompiler.compile', 160).endsWith('JavaCompiler.compile'), 'labels shortened from the package side: ' + fit('com.sun.tools.javac.main.JavaCompiler.compile', 160));
  // 4. Search highlights and reports the share.
  var q = document.getElementById('q'), want = SELFTEST_SEARCH;
  q.value = want; q.dispatchEvent(new Event('input'));
  var m = document.getElementById('match').textContent, hitbox = null;
  for (var i = 0; i < boxes.length && !hitbox; i++) if (boxes[i][3].f >= 0 && new RegExp(want).test(N[boxes[i][3].f]) && boxes[i][2] > 4) hitbox = boxes[i];
  t(/matched [1-9]/.test(m) && hitbox && same(px(hitbox[0] + 2, hitbox[1] + 2), hex('#e040e0')), 'search "' + want + '": ' + m + ', frames highlighted');
  q.value = ''; q.dispatchEvent(new Event('input'));
  // 5. Tooltip on hover: shown, names the frame, inside the window.
  var wide = null;
  for (var i = 0; i < boxes.length; i++) if (boxes[i][3].f >= 0 && (!wide || boxes[i][2] > wide[2]) && boxes[i][3] !== root) wide = boxes[i];
  var cx = r.left + wide[0] + wide[2] / 2, cy = r.top + wide[1] + 8;
  cv.dispatchEvent(new MouseEvent('mousemove', { clientX: cx, clientY: cy, bubbles: true }));
  var tip = document.getElementById('tip'), tr = tip.getBoundingClientRect();
  t(tip.style.display == 'block' && tip.textContent.indexOf(N[wide[3].f]) == 0 && tr.right <= vw && tr.bottom <= vh,
    'tooltip on hover names ' + N[wide[3].f] + ' inside the window');
  // 6. Zoom: a click on a frame makes it the full width.
  cv.dispatchEvent(new MouseEvent('click', { clientX: cx, clientY: cy, bubbles: true }));
  var zb = boxOf(wide[3]);
  t(zb && zb[2] >= cv.width - 1 && document.getElementById('info').textContent.indexOf('zoomed to ' + N[wide[3].f]) > 0, 'click zooms to ' + N[wide[3].f]);
  document.getElementById('reset').click();
  // 7. The view switch: the flame view puts the root at the bottom.
  document.getElementById('mode').click();
  var rb2 = boxOf(root);
  t(rb2 && rb2[1] == cv.height - 16, 'view switch: flame view has the root at the bottom');
  document.getElementById('mode').click();
  var pre = document.createElement('pre');
  pre.id = 'selftest';
  pre.textContent = 'SELFTEST ' + (bad ? 'FAIL' : 'ok') + '\n' + out.join('\n');
  document.body.appendChild(pre);
})();
