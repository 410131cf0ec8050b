/*
 * jfr_encode.c - the byte level of a JFR recording (jfr_encode.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/jfr_encode.h"

/* N. */
void jfr_buf_free(jfr_buf *b) {
  free(b->data);
  memset(b, 0, sizeof *b);
}

/* N. */
void jfr_put_bytes(jfr_buf *b, const void *p, size_t n) {
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 1 << 16;
    while (cap < b->len + n) cap *= 2;
    uint8_t *d = realloc(b->data, cap);
    if (!d) abort(); /* a dump that cannot grow its buffer has nothing sensible left to do */
    b->data = d, b->cap = cap;
  }
  memcpy(b->data + b->len, p, n);
  b->len += n;
}

/* N. */
void jfr_put_u8(jfr_buf *b, uint8_t v) { jfr_put_bytes(b, &v, 1); }

/* N. Seven bits a byte, low first; the ninth byte, if reached, carries eight. */
void jfr_put_varint(jfr_buf *b, uint64_t v) {
  uint8_t out[9];
  int n = 0;
  while (n < 8 && v >= 0x80) {
    out[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  out[n++] = (uint8_t)v;
  jfr_put_bytes(b, out, (size_t)n);
}

/* N. */
void jfr_put_int(jfr_buf *b, int32_t v) { jfr_put_varint(b, (uint32_t)v); }

/* N. */
void jfr_put_string(jfr_buf *b, const char *s) {
  if (!s) {
    jfr_put_u8(b, 0); /* null */
    return;
  }
  size_t n = strlen(s);
  jfr_put_u8(b, 3); /* UTF-8 byte array */
  jfr_put_varint(b, n);
  jfr_put_bytes(b, s, n);
}

#define SIZE_BYTES 5 /* an event's size, written as a padded varint once it is known */

/* N. */
size_t jfr_event_begin(jfr_buf *b, uint64_t type, uint64_t ticks) {
  size_t start = b->len;
  static const uint8_t hole[SIZE_BYTES];
  jfr_put_bytes(b, hole, SIZE_BYTES);
  jfr_put_varint(b, type);
  jfr_put_varint(b, ticks);
  return start;
}

/* N. The reader takes a varint with continuation bits on leading zero groups as any other,
 * so the size keeps its five bytes whatever its value. */
void jfr_event_end(jfr_buf *b, size_t start) {
  uint64_t size = b->len - start;
  for (int i = 0; i < SIZE_BYTES; i++)
    b->data[start + i] = (uint8_t)((size >> (7 * i)) & 0x7f) | (i < SIZE_BYTES - 1 ? 0x80 : 0);
}

/* N. Big-endian, as the chunk header is. */
static void put_be(jfr_buf *b, size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++) b->data[at + i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

/* N. */
void jfr_header_reserve(jfr_buf *b) {
  static const uint8_t zero[JFR_HEADER_SIZE];
  jfr_put_bytes(b, zero, JFR_HEADER_SIZE);
}

/* N. Magic, version 2.0, chunk size, the offsets of the (last) checkpoint and of the
 * metadata, the times; then the file state byte (0: finished) and the flag byte (bit 1:
 * the recording's final chunk). */
void jfr_header_finish(jfr_buf *b, const jfr_times *t, size_t cp_offset, size_t meta_offset,
                       bool final) {
  memcpy(b->data, "FLR", 4);
  put_be(b, 4, 2, 2);
  put_be(b, 6, 0, 2);
  put_be(b, 8, b->len, 8);
  put_be(b, 16, cp_offset, 8);
  put_be(b, 24, meta_offset, 8);
  put_be(b, 32, t->start_nanos, 8);
  put_be(b, 40, t->duration_nanos, 8);
  put_be(b, 48, t->start_ticks, 8);
  put_be(b, 56, t->ticks_per_second, 8);
  put_be(b, 64, 0, 1);
  put_be(b, 65, 0, 2);
  put_be(b, 67, final ? 1 << 1 : 0, 1);
}

/* N. FNV-1a. */
static uint32_t hash_of(const void *key, uint32_t len) {
  const uint8_t *p = key;
  uint32_t h = 2166136261u;
  for (uint32_t i = 0; i < len; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

/* N. */
static bool key_is(const uint8_t *k, const void *key, uint32_t len) {
  uint32_t kl;
  memcpy(&kl, k, 4);
  return kl == len && memcmp(k + 4, key, len) == 0;
}

/* N. Doubles the slots (and the key array) and places every id again. */
static void grow(jfr_map *m) {
  uint32_t cap = m->cap ? m->cap * 2 : 1024;
  uint32_t *slots = calloc(cap, sizeof *slots);
  uint8_t **keys = realloc(m->keys, (size_t)cap * sizeof *keys);
  if (!slots || !keys) abort();
  for (uint32_t id = 1; id <= m->n; id++) {
    uint32_t kl;
    memcpy(&kl, keys[id - 1], 4);
    uint32_t s = hash_of(keys[id - 1] + 4, kl) & (cap - 1);
    while (slots[s]) s = (s + 1) & (cap - 1);
    slots[s] = id;
  }
  free(m->slots);
  m->slots = slots, m->keys = keys, m->cap = cap;
}

/* N. */
uint32_t jfr_map_id(jfr_map *m, const void *key, uint32_t len, bool *added) {
  if ((m->n + 1) * 2 > m->cap) grow(m);
  uint32_t s = hash_of(key, len) & (m->cap - 1);
  for (; m->slots[s]; s = (s + 1) & (m->cap - 1))
    if (key_is(m->keys[m->slots[s] - 1], key, len)) {
      if (added) *added = false;
      return m->slots[s];
    }
  uint8_t *k = malloc(4 + (size_t)len);
  if (!k) abort();
  memcpy(k, &len, 4);
  memcpy(k + 4, key, len);
  m->keys[m->n] = k;
  m->slots[s] = ++m->n;
  if (added) *added = true;
  return m->n;
}

/* N. */
const uint8_t *jfr_map_key(const jfr_map *m, uint32_t id, uint32_t *len) {
  memcpy(len, m->keys[id - 1], 4);
  return m->keys[id - 1] + 4;
}

/* N. */
void jfr_map_free(jfr_map *m) {
  for (uint32_t i = 0; i < m->n; i++) free(m->keys[i]);
  free(m->keys);
  free(m->slots);
  memset(m, 0, sizeof *m);
}

/* ---- The metadata event ----------------------------------------------------------------
 * A string table, then a tree of elements (name, attributes as string pairs, children),
 * every string an index into the table: root { metadata { class* } region }. A class has
 * field and annotation children; a field may have annotations of its own. */

typedef struct {
  jfr_buf tree;
  jfr_map strings;
  const jfr_type *types;
  int ntypes;
} meta;

/* N. A string's index in the table. */
static void put_str(meta *m, const char *s) {
  jfr_put_varint(&m->tree, jfr_map_id(&m->strings, s, (uint32_t)strlen(s), NULL) - 1);
}

/* N. An element's name and attributes (pairs of strings); its children follow. */
static void element(meta *m, const char *name, int nattrs, const char *const *attrs,
                    int nchildren) {
  put_str(m, name);
  jfr_put_varint(&m->tree, (uint64_t)nattrs);
  for (int i = 0; i < 2 * nattrs; i++) put_str(m, attrs[i]);
  jfr_put_varint(&m->tree, (uint64_t)nchildren);
}

/* N. The id of the type called name, as a string in idbuf. */
static const char *type_id(const meta *m, const char *name, char *idbuf) {
  uint64_t id = 0;
  for (int i = 0; i < m->ntypes; i++)
    if (strcmp(m->types[i].name, name) == 0) id = m->types[i].id;
  snprintf(idbuf, 24, "%llu", (unsigned long long)id);
  return idbuf;
}

/* N. An annotation of type name with its value. */
static void annotation(meta *m, const char *name, const char *value) {
  char id[24];
  const char *attrs[] = {"class", type_id(m, name, id), "value", value};
  element(m, "annotation", 2, attrs, 0);
}

/* N. */
static void field(meta *m, const jfr_field *f) {
  char id[24];
  const char *attrs[8] = {"name", f->name, "class", type_id(m, f->type, id)};
  int n = 2;
  if (f->cp) attrs[2 * n] = "constantPool", attrs[2 * n + 1] = "true", n++;
  if (f->array) attrs[2 * n] = "dimension", attrs[2 * n + 1] = "1", n++;
  element(m, "field", n, attrs, f->stamp ? 1 : 0);
  if (f->stamp) annotation(m, "jdk.jfr.Timestamp", f->stamp);
}

/* N. */
static void type(meta *m, const jfr_type *t) {
  char id[24];
  snprintf(id, sizeof id, "%llu", (unsigned long long)t->id);
  const char *attrs[8] = {"name", t->name, "id", id};
  int n = 2;
  if (t->super) attrs[2 * n] = "superType", attrs[2 * n + 1] = t->super, n++;
  if (t->simple) attrs[2 * n] = "simpleType", attrs[2 * n + 1] = "true", n++;
  element(m, "class", n, attrs, t->nfields + (t->label ? 1 : 0));
  if (t->label) annotation(m, "jdk.jfr.Label", t->label);
  for (int i = 0; i < t->nfields; i++) field(m, &t->fields[i]);
}

/* N. */
void jfr_write_metadata(jfr_buf *b, const jfr_type *types, int n, uint64_t ticks) {
  meta m = {.types = types, .ntypes = n};
  element(&m, "root", 0, NULL, 2);
  element(&m, "metadata", 0, NULL, n);
  for (int i = 0; i < n; i++) type(&m, &types[i]);
  const char *region[] = {"locale", "en_US", "gmtOffset", "0"};
  element(&m, "region", 2, region, 0);

  size_t start = jfr_event_begin(b, 0, ticks);
  jfr_put_varint(b, 0); /* duration */
  jfr_put_varint(b, 1); /* metadata id: the one metadata of the recording */
  jfr_put_varint(b, m.strings.n);
  for (uint32_t id = 1; id <= m.strings.n; id++) {
    uint32_t len;
    const uint8_t *s = jfr_map_key(&m.strings, id, &len);
    jfr_put_u8(b, 3);
    jfr_put_varint(b, len);
    jfr_put_bytes(b, s, len);
  }
  jfr_put_bytes(b, m.tree.data, m.tree.len);
  jfr_event_end(b, start);
  jfr_buf_free(&m.tree);
  jfr_map_free(&m.strings);
}
