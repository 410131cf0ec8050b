/*
 * proto_encode.c - the protocol-buffer wire format (proto_encode.h). A field is a key
 * (field number << 3 | wire type) then its value: wire type 0 a varint, 2 a varint length
 * and that many bytes. Varints carry 7 bits a byte, low bits first, the top bit set on
 * every byte but the last.
 */
#include <stdlib.h>
#include <string.h>

#include "output/proto_encode.h"

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

/* N. Room for n more bytes; false (and the buffer marked failed) if there is none. */
static bool reserve(pb_buf *b, size_t n) {
  if (b->failed) return false;
  if (b->len + n <= b->cap) return true;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + n) cap *= 2;
  uint8_t *p = realloc(b->data, cap);
  if (!p) return b->failed = true, false;
  b->data = p;
  b->cap = cap;
  return true;
}

/* N. */
void pb_free(pb_buf *b) {
  free(b->data);
  memset(b, 0, sizeof *b);
}

/* N. */
void pb_clear(pb_buf *b) { b->len = 0; }

/* N. */
void pb_raw_varint(pb_buf *b, uint64_t v) {
  if (!reserve(b, 10)) return;
  while (v >= 0x80) {
    b->data[b->len++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  b->data[b->len++] = (uint8_t)v;
}

/* N. */
void pb_varint(pb_buf *b, int field, uint64_t v) {
  pb_raw_varint(b, (uint64_t)field << 3 | WIRE_VARINT);
  pb_raw_varint(b, v);
}

/* N. */
void pb_bytes(pb_buf *b, int field, const void *data, size_t len) {
  pb_raw_varint(b, (uint64_t)field << 3 | WIRE_LEN);
  pb_raw_varint(b, len);
  if (len && reserve(b, len)) {
    memcpy(b->data + b->len, data, len);
    b->len += len;
  }
}

/* N. */
void pb_string(pb_buf *b, int field, const char *s) { pb_bytes(b, field, s, strlen(s)); }

/* N. A failed part makes the whole failed, so the writer reports it once at the end. */
void pb_message(pb_buf *b, int field, const pb_buf *msg) {
  if (msg->failed) b->failed = true;
  pb_bytes(b, field, msg->data, msg->len);
}
