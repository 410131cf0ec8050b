/*
 * jfr_encode.h - the byte level of a JFR recording (jfr_encode.c): a growing buffer,
 * LEB128 varints (JFR's "compressed integers": every int and long of an event), strings,
 * event framing, the 68-byte chunk header, a byte-keyed interning map for the constant
 * pools, and the metadata event written from a table of types. What goes in a recording
 * is jfr_writer.c's and jfr_pools.c's.
 *
 * Facts from the JDK's reader (jdk.jfr.internal.consumer): a chunk is the header, then
 * events (size, type id, fields); type 0 is the metadata event, type 1 a checkpoint (the
 * constant pools); strings are an encoding byte (0 null, 1 empty, 2 a reference into a
 * String pool, 3 UTF-8, 4 char array, 5 Latin-1) then length and bytes: we write 0 and 3.
 * A recording is chunks one after another, each standing alone (its own header, events,
 * constant pools and metadata); the header's flags mark the last one.
 *
 * Signal-safety classes as in asgst.h: every function here is N, ordinary code.
 */
#ifndef ASGSTPROF_OUTPUT_JFR_ENCODE_H
#define ASGSTPROF_OUTPUT_JFR_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint8_t *data;
  size_t len, cap;
} jfr_buf;

void jfr_buf_free(jfr_buf *b);                          /* N */
void jfr_put_bytes(jfr_buf *b, const void *p, size_t n); /* N */
void jfr_put_u8(jfr_buf *b, uint8_t v);                  /* N */
void jfr_put_varint(jfr_buf *b, uint64_t v);             /* N. LEB128, 1 to 9 bytes */
/* N. A field of type int: its 32 bits as a varint (at most 5 bytes, as the JDK writes it:
 * a negative int as a 9-byte long would throw readers that take ints as 5 at most). */
void jfr_put_int(jfr_buf *b, int32_t v);
/* N. A UTF-8 string; NULL is written as JFR's null string. */
void jfr_put_string(jfr_buf *b, const char *s);

/* N. Starts an event of type id at time ticks: returns where its size goes. */
size_t jfr_event_begin(jfr_buf *b, uint64_t type, uint64_t ticks);
/* N. Writes the size of the event begun at start. */
void jfr_event_end(jfr_buf *b, size_t start);

/* Times of a chunk: its start as wall-clock nanoseconds and as ticks, its length. */
typedef struct {
  uint64_t start_nanos, start_ticks, duration_nanos, ticks_per_second;
} jfr_times;

#define JFR_HEADER_SIZE 68
/* N. Reserves the chunk header; jfr_header_finish fills it in once the offsets are known. */
void jfr_header_reserve(jfr_buf *b);
void jfr_header_finish(jfr_buf *b, const jfr_times *t, size_t cp_offset, size_t meta_offset,
                       bool final);

/* An interning map from byte keys to ids 1, 2, ... in order of first sight. */
typedef struct {
  uint8_t **keys;   /* by id - 1: [4-byte length][bytes] */
  uint32_t *slots;  /* open addressing: id, 0 if empty */
  uint32_t n, cap;  /* ids given; slots (a power of two) */
} jfr_map;

/* N. The id of key (added if new); *added says whether it was. */
uint32_t jfr_map_id(jfr_map *m, const void *key, uint32_t len, bool *added);
/* N. The key of id, and its length. */
const uint8_t *jfr_map_key(const jfr_map *m, uint32_t id, uint32_t *len);
void jfr_map_free(jfr_map *m); /* N */

/* The metadata: types by name, their fields by the name of their type. */
typedef struct {
  const char *name, *type;
  bool cp, array;        /* a constant pool reference; an array */
  const char *stamp;     /* a time: its jdk.jfr.Timestamp unit ("TICKS"), NULL if not one */
} jfr_field;

typedef struct {
  uint64_t id;
  const char *name, *super, *label; /* super: "jdk.jfr.Event" for an event, NULL else */
  const jfr_field *fields;
  int nfields;
  bool simple; /* one field, which readers give in place of the object (a Symbol is its
                  string), as the JDK marks its own such types */
} jfr_type;

/* N. The metadata event describing types[0..n) (which include the primitive types and the
 * annotation types jdk.jfr.Label and jdk.jfr.Timestamp). */
void jfr_write_metadata(jfr_buf *b, const jfr_type *types, int n, uint64_t ticks);

#endif /* ASGSTPROF_OUTPUT_JFR_ENCODE_H */
