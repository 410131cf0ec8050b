/*
 * hot_frames.c - the "hottest frames" list of the .txt output: self samples per method,
 * the frame types of one method (interpreted, C1, C2, inlined...) merged into one line
 * with a breakdown, e.g. "2510 DemoApp.hashLoop (2502 C2, 8 interpreted)". The symbol
 * table keeps one id per (method, type), so ids are grouped by name here. The terminal's
 * summary (summary_short.c) takes the top ten of each event's list from here too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/output.h"
#include "symbols/symbols.h"

#define HOT_LINES 25

typedef struct {
  const char *name;
  uint64_t total;
  uint64_t by_type[FT_NTYPES];
} hot;

/* N. */
static int by_name(const void *a, const void *b) {
  return strcmp(((const hot *)a)->name, ((const hot *)b)->name);
}

/* N. Most samples first. */
static int by_total(const void *a, const void *b) {
  uint64_t x = ((const hot *)a)->total, y = ((const hot *)b)->total;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* N. Words for the frame types in the breakdown. */
static const char *type_word(int t) {
  static const char *const w[FT_NTYPES] = {"interpreted", "C1", "C2", "inlined", "native",
                                           "C", "thread", "kernel"};
  return t >= 0 && t < FT_NTYPES ? w[t] : "?";
}

/* N. One line: count, share, name, and the breakdown when there is more than one type. */
static void write_line(FILE *out, const hot *h, uint64_t all) {
  char parts[256] = "";
  size_t l = 0;
  int ntypes = 0;
  for (int t = 0; t < FT_NTYPES; t++) ntypes += h->by_type[t] != 0;
  for (int t = FT_NTYPES - 1; ntypes > 1 && t >= 0; t--) {
    if (!h->by_type[t] || l >= sizeof parts) continue;
    l += (size_t)snprintf(parts + l, sizeof parts - l, "%s%llu %s", l ? ", " : " (",
                          (unsigned long long)h->by_type[t], type_word(t));
  }
  if (l && l < sizeof parts - 1) strcat(parts, ")");
  fprintf(out, "  %8llu %6.2f%%  %s%s\n", (unsigned long long)h->total,
          100.0 * (double)h->total / (double)(all ? all : 1), h->name, parts);
}

/* N. True for the "[state=...]" frame the states option puts on top of a stack. */
static bool is_state_frame(int frame) {
  return prof_sym_type(frame) == FT_THREAD && strncmp(prof_sym_name(frame), "[state=", 7) == 0;
}

/* N. Adds the self samples of node i and every node below it to h; a state frame's go to
 * the frame below it (parent, -1 at the root), the method the thread was in. */
static void add_subtree(const prof_tree *t, int i, int parent, hot *h) {
  const prof_node *nd = &t->nodes[i];
  int f = nd->frame >= 0 && is_state_frame(nd->frame) && parent >= 0 ? parent : nd->frame;
  if (f >= 0) {
    h[f].by_type[prof_sym_type(f)] += nd->self;
    h[f].total += nd->self;
  }
  for (int c = nd->first_child; c >= 0; c = t->nodes[c].next_sibling)
    add_subtree(t, c, nd->frame, h);
}

/* N. The methods of the samples below node `top`, frame types of one method merged, most
 * self samples first; their number in *m (an array to free). */
static hot *merged_list(const prof_tree *t, int top, int *m_out) {
  int n = prof_sym_count();
  hot *h = calloc((size_t)n + 1, sizeof *h);
  if (!h) return *m_out = 0, NULL;
  for (int i = 0; i < n; i++) h[i].name = prof_sym_name(i);
  add_subtree(t, top, -1, h);
  /* Same name, different type: fold into the first of the run. */
  qsort(h, (size_t)n, sizeof *h, by_name);
  int m = 0;
  for (int i = 0; i < n; i++) {
    if (m > 0 && strcmp(h[m - 1].name, h[i].name) == 0) {
      h[m - 1].total += h[i].total;
      for (int k = 0; k < FT_NTYPES; k++) h[m - 1].by_type[k] += h[i].by_type[k];
    } else {
      h[m++] = h[i];
    }
  }
  qsort(h, (size_t)m, sizeof *h, by_total);
  *m_out = m;
  return h;
}

/* N. The list of the samples below node `top`; `of` names its event ("" for the tree's
 * only one), and the shares are of its samples alone. */
static void write_list(FILE *out, const prof_tree *t, int top, const char *of) {
  int m;
  hot *h = merged_list(t, top, &m);
  uint64_t all = t->nodes[top].total;
  fprintf(out, "hottest frames%s%s (self samples of %llu; frame types of one method merged):\n",
          of[0] ? " of " : "", of, (unsigned long long)all);
  for (int i = 0; i < m && i < HOT_LINES && h[i].total; i++) write_line(out, &h[i], all);
  free(h);
}

/* N. The samples of a walk without frames end at the root: the terminal's list names
 * them (as many as a method had, they would be missing from its shares). */
void prof_write_top_methods(FILE *out, const prof_tree *t, int lines) {
  if (t->n == 0) return;
  int m;
  hot *h = merged_list(t, 0, &m);
  if (!h) return;
  /* merged_list's array has room for one more entry. */
  if (t->nodes[0].self) {
    h[m] = (hot){.name = "[no Java frames]", .total = t->nodes[0].self};
    h[m].by_type[FT_THREAD] = t->nodes[0].self;
    m++;
    qsort(h, (size_t)m, sizeof *h, by_total);
  }
  for (int i = 0; i < m && i < lines && h[i].total; i++) write_line(out, &h[i], t->nodes[0].total);
  free(h);
}

/* N. With event roots, one list per event, each its own 100%: a tracepoint's samples and
 * cpu samples count different things, and one share of both would mean neither. */
void prof_write_hot_frames(FILE *out, const prof_tree *t, bool event_roots) {
  if (t->n == 0) return;
  if (!event_roots) {
    write_list(out, t, 0, "");
    return;
  }
  for (int c = t->nodes[0].first_child; c >= 0; c = t->nodes[c].next_sibling) {
    char name[160];
    snprintf(name, sizeof name, "%s", prof_sym_name(t->nodes[c].frame));
    write_list(out, t, c, name);
    if (t->nodes[c].next_sibling >= 0) fputc('\n', out);
  }
}
