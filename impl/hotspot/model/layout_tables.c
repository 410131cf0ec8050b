/*
 * layout_tables.c - vmStructs tables from text, in the shape libjvm exports them, so that
 * the HotSpot model is built by its usual code from a recording's layout (or from a
 * vmStructs dump in the unit tests). The text format is the dump's (format.h):
 *   STRUCT Type::field offset=N type=T      STRUCT Type::field static addr=0xA type=T
 *   TYPE name ... size=N ...                INT name = N        LONG name = N
 *   VALUE name = N                          (facts read from the live VM; see format.h)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout_tables.h"

/* N. Splits "Type::field" at the last "::" in place; false if there is none. */
static bool split_name(char *name, const char **type, const char **field) {
  char *sep = NULL;
  for (char *p = strstr(name, "::"); p; p = strstr(p + 2, "::")) sep = p;
  if (sep == NULL) return false;
  *sep = '\0';
  *type = name;
  *field = sep + 2;
  return true;
}

/* N. The number after "key" in s (base 0: decimal or 0x), false if absent. */
static bool number_after(const char *s, const char *key, int64_t *out) {
  const char *p = strstr(s, key);
  if (p == NULL) return false;
  char *end;
  *out = (int64_t)strtoull(p + strlen(key), &end, 0);
  return end != p + strlen(key);
}

/* N. One STRUCT line (name cut in place; rest is after the name). */
static bool parse_struct(asgst__layout_tables *t, char *name, char *rest) {
  asgst__vms_struct *e = &t->structs[t->nstructs];
  int64_t v;
  if (!split_name(name, &e->type, &e->field)) return false;
  char *type = strstr(rest, "type=");
  e->type_string = type ? type + 5 : "?";
  e->is_static = strncmp(rest, "static", 6) == 0;
  if (e->is_static) {
    if (!number_after(rest, "addr=", &v)) return false;
    e->address = (void *)(uintptr_t)v;
    /* The model reads the version through this static at init: point it at our copy. */
    if (strcmp(e->type, "Abstract_VM_Version") == 0 && strcmp(e->field, "_vm_major_version") == 0)
      e->address = &t->jdk;
  } else {
    if (!number_after(rest, "offset=", &v)) return false;
    e->offset = (uint64_t)v;
  }
  if (type) type[-1] = '\0'; /* the type string ends the line */
  t->nstructs++;
  return true;
}

/* N. One line; false if it is not understood. */
static bool parse_line(asgst__layout_tables *t, char *line) {
  char *save = NULL, *kind = strtok_r(line, " ", &save), *name = strtok_r(NULL, " ", &save);
  char *rest = save ? save : (char *)"";
  int64_t v;
  if (kind == NULL) return true;
  if (name == NULL) return false;
  if (strcmp(kind, "STRUCT") == 0) return parse_struct(t, name, rest);
  if (strcmp(kind, "TYPE") == 0) {
    if (!number_after(rest, "size=", &v)) return false;
    t->types[t->ntypes++] = (asgst__vms_type){name, (uint64_t)v};
    return true;
  }
  if (!number_after(rest, "= ", &v)) return false;
  if (strcmp(kind, "INT") == 0) t->ints[t->nints++] = (asgst__vms_int_const){name, (int32_t)v};
  else if (strcmp(kind, "LONG") == 0) t->longs[t->nlongs++] = (asgst__vms_long_const){name, v};
  else if (strcmp(kind, "VALUE") == 0 && t->nvalues < ASGST__LAYOUT_MAX_VALUES)
    t->values[t->nvalues++] = (asgst__layout_named){name, v};
  else return false;
  return true;
}

/* N. */
int asgst__layout_parse(const char *text, size_t len, asgst__layout_tables *t, char *err,
                        size_t errlen) {
  memset(t, 0, sizeof *t);
  size_t lines = 1;
  for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
  t->text = malloc(len + 1);
  t->structs = calloc(lines + 1, sizeof *t->structs);
  t->types = calloc(lines + 1, sizeof *t->types);
  t->ints = calloc(lines + 1, sizeof *t->ints);
  t->longs = calloc(lines + 1, sizeof *t->longs);
  if (!t->text || !t->structs || !t->types || !t->ints || !t->longs) {
    snprintf(err, errlen, "out of memory for %zu layout lines", lines);
    asgst__layout_free(t);
    return -1;
  }
  memcpy(t->text, text, len);
  t->text[len] = '\0';
  int64_t jdk = 0;
  char *save = NULL;
  size_t n = 0;
  for (char *line = strtok_r(t->text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    n++;
    if (!parse_line(t, line)) {
      snprintf(err, errlen, "layout line %zu is not understood", n);
      asgst__layout_free(t);
      return -1;
    }
  }
  if (asgst__layout_value(t, "jdk", &jdk)) t->jdk = (int)jdk;
  return 0;
}

/* N. */
bool asgst__layout_value(const asgst__layout_tables *t, const char *name, int64_t *out) {
  for (int i = 0; i < t->nvalues; i++)
    if (strcmp(t->values[i].name, name) == 0) return (*out = t->values[i].value), true;
  return false;
}

/* N. */
void asgst__layout_use(asgst__layout_tables *t) {
  asgst__vms_use(t->structs, t->types, t->ints, t->longs);
}

/* N. */
void asgst__layout_free(asgst__layout_tables *t) {
  free(t->text);
  free(t->structs);
  free(t->types);
  free(t->ints);
  free(t->longs);
  memset(t, 0, sizeof *t);
}
