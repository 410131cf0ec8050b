/*
 * flamegraph.c - the HTML flame graph: one self-contained page (inline style and script,
 * no network) holding the aggregated tree, with colours by frame type, click to zoom and
 * a search box. See flamegraph_page.h for the page and the data layout.
 */
#include <stdio.h>
#include <string.h>

#include "output/flamegraph_page.h"
#include "output/writer.h"
#include "symbols/symbols.h"

/* N. Writes s as a JavaScript string literal, safe inside a <script> element. */
static void js_string(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') fprintf(out, "\\%c", ch);
    else if (ch < 0x20 || ch == '<' || ch == '>' || ch == '&') fprintf(out, "\\u%04x", ch);
    else fputc(ch, out);
  }
  fputc('"', out);
}

/* N. Writes s with HTML special characters escaped. */
static void html_text(FILE *out, const char *s) {
  for (; *s; s++) {
    if (*s == '<') fputs("&lt;", out);
    else if (*s == '>') fputs("&gt;", out);
    else if (*s == '&') fputs("&amp;", out);
    else if (*s == '"') fputs("&quot;", out);
    else fputc(*s, out);
  }
}

/* N. The tree in preorder: frame, total, self, number of children. */
static void write_nodes(const prof_tree *t, int i, FILE *out, int *col) {
  const prof_node *n = &t->nodes[i];
  int nk = 0;
  for (int c = n->first_child; c >= 0; c = t->nodes[c].next_sibling) nk++;
  *col += fprintf(out, "%d,%llu,%llu,%d,", n->frame, (unsigned long long)n->total,
                  (unsigned long long)n->self, nk);
  if (*col > 200) fputc('\n', out), *col = 0;
  for (int c = n->first_child; c >= 0; c = t->nodes[c].next_sibling) write_nodes(t, c, out, col);
}

/* N. The page for the dump's tree. */
static int write_page(const prof_dump_view *d, FILE *out) {
  const prof_tree *t = d->tree;
  const char *title = d->title;
  const char *split = strstr(prof_page_head, "%s");
  const char *split2 = strstr(split + 2, "%s");
  fwrite(prof_page_head, 1, (size_t)(split - prof_page_head), out);
  html_text(out, title);
  fwrite(split + 2, 1, (size_t)(split2 - split - 2), out);
  html_text(out, title);
  fputs(split2 + 2, out);
  fputs("var N=[", out);
  for (int i = 0; i < prof_sym_count(); i++) {
    if (i) fputs(i % 8 ? "," : ",\n", out);
    js_string(out, prof_sym_name(i));
  }
  fputs("];\nvar T=[", out);
  for (int i = 0; i < prof_sym_count(); i++) fprintf(out, "%s%d", i ? "," : "", prof_sym_type(i));
  fputs("];\nvar D=[", out);
  int col = 0;
  write_nodes(t, 0, out, &col);
  fprintf(out, "];\nvar EV=%d;\n", d->event_roots ? 1 : 0);
  fputs(prof_page_tail, out);
  return ferror(out) ? -1 : 0;
}

const prof_writer prof_flamegraph_writer = {".html", write_page, false, false};
