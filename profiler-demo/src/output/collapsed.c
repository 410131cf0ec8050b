/*
 * collapsed.c - folded stacks, the FlameGraph tools' input: one line per distinct path,
 * frames root first separated by ';', then a space and the sample count. Java frames carry
 * the frame-type suffix async-profiler's collapsed output uses (FlameGraph's --color=java
 * and async-profiler's converters read them): _[0] interpreted, _[1] C1-compiled, _[j]
 * JIT-compiled (C2), _[i] inlined; native method wrappers, C frames and the synthetic
 * [event] / [thread] roots have none. A ';' or ' ' inside a name becomes '_'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/writer.h"
#include "symbols/symbols.h"

/* N. The suffix of a frame type (see above). */
static const char *suffix(enum prof_ftype t) {
  switch (t) {
    case FT_INTERP: return "_[0]";
    case FT_C1: return "_[1]";
    case FT_C2: return "_[j]";
    case FT_INLINED: return "_[i]";
    default: return "";
  }
}

/* N. Writes the lines of node i and below; path holds the names of its ancestors. */
static void emit(const prof_tree *t, int i, char *path, size_t len, size_t cap, FILE *out) {
  const prof_node *n = &t->nodes[i];
  size_t l = len;
  if (n->frame >= 0) {
    const char *name = prof_sym_name(n->frame), *sfx = suffix(prof_sym_type(n->frame));
    size_t nl = strlen(name), sl = strlen(sfx);
    if (l + nl + sl + 2 < cap) {
      if (l) path[l++] = ';';
      for (size_t k = 0; k < nl; k++) path[l + k] = name[k] == ';' || name[k] == ' ' ? '_'
                                                                                      : name[k];
      memcpy(path + l + nl, sfx, sl);
      l += nl + sl;
      path[l] = 0;
    }
  }
  if (n->self && l) fprintf(out, "%s %llu\n", path, (unsigned long long)n->self);
  for (int c = n->first_child; c >= 0; c = t->nodes[c].next_sibling)
    emit(t, c, path, l, cap, out);
  path[len] = 0;
}

/* N. One line per distinct stack, root first, with its count. */
static int write_folded(const prof_dump_view *d, FILE *out) {
  const prof_tree *t = d->tree;
  size_t cap = 1 << 16;
  char *path = malloc(cap);
  path[0] = 0;
  emit(t, 0, path, 0, cap, out);
  free(path);
  return ferror(out) ? -1 : 0;
}

const prof_writer prof_collapsed_writer = {".collapsed", write_folded, false, false};
