/*
 * fd_table.c - the descriptors of the traced fd calls, from creation to close.
 *
 * The records are replayed in sequence order against a map fd number -> entry: a creating
 * call (socket, accept, open, pipe...) starts an entry and ends the one that held the
 * number before (the number was free again, so that one was closed by then); bind, listen
 * and connect (also failed ones) join the entry of their fd; a traced close ends it exactly. What is still
 * current at the end is checked against the process: same fd number and same inode means
 * still open. An untraced close is only known to lie between the last time the entry was
 * seen open and the first time it was seen closed; those times are remembered between
 * builds (memory below), so rewriting the report on an interval narrows them down.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fd/fd_table.h"

/* ---- The memory of open/closed sightings, keyed by the entry's first record. ---- */
typedef struct {
  uint64_t seq, t;                 /* record seq and its time: unique across restarts */
  uint64_t seen_open[2], closed[2];
} sighting;

static sighting *mem;
static size_t mem_cap, mem_n;

/* N. The slot of (seq, t), added if absent. */
static sighting *remember(uint64_t seq, uint64_t t) {
  if (2 * (mem_n + 1) > mem_cap) {
    size_t ncap = mem_cap ? mem_cap * 2 : 1024;
    sighting *nm = calloc(ncap, sizeof *nm);
    for (size_t i = 0; i < mem_cap; i++) {
      if (!mem[i].t) continue;
      size_t j = (mem[i].seq * 0x9E3779B97F4A7C15ull) & (ncap - 1);
      while (nm[j].t) j = (j + 1) & (ncap - 1);
      nm[j] = mem[i];
    }
    free(mem);
    mem = nm, mem_cap = ncap;
  }
  size_t j = (seq * 0x9E3779B97F4A7C15ull) & (mem_cap - 1);
  while (mem[j].t && !(mem[j].seq == seq && mem[j].t == t)) j = (j + 1) & (mem_cap - 1);
  if (!mem[j].t) mem[j] = (sighting){.seq = seq, .t = t}, mem_n++;
  return &mem[j];
}

/* ---- Building. ---- */
typedef struct {
  fd_call *c;
  size_t n, cap;
} calls;

/* N. Collects every record that carries fd information. */
static void collect(const prof_record *r, const prof_frame *f, const prof_fdinfo *fi, void *arg) {
  if (!fi || r->event >= prof.opts.nevents) return;
  calls *cs = arg;
  if (cs->n == cs->cap) {
    cs->cap = cs->cap ? cs->cap * 2 : 256;
    cs->c = realloc(cs->c, cs->cap * sizeof *cs->c);
  }
  cs->c[cs->n++] = (fd_call){r, f, fi};
}

/* N. Oldest first. */
static int by_seq(const void *a, const void *b) {
  uint64_t x = ((const fd_call *)a)->r->seq, y = ((const fd_call *)b)->r->seq;
  return x < y ? -1 : x > y;
}

/* Map from fd number to (entry index + 1) * 2 + end, 0 if none; grown on demand. */
typedef struct {
  int *slot;
  size_t cap;
} fdmap;

/* N. The map cell of fd (grown to hold it). */
static int *cell(fdmap *m, int fd) {
  if ((size_t)fd >= m->cap) {
    size_t ncap = m->cap ? m->cap : 1024;
    while (ncap <= (size_t)fd) ncap *= 2;
    m->slot = realloc(m->slot, ncap * sizeof *m->slot);
    memset(m->slot + m->cap, 0, (ncap - m->cap) * sizeof *m->slot);
    m->cap = ncap;
  }
  return &m->slot[fd];
}

/* N. A new entry (zeroed, no fds). */
static fd_entry *add_entry(fd_table *t) {
  if (t->n == t->cap) {
    t->cap = t->cap ? t->cap * 2 : 256;
    t->e = realloc(t->e, t->cap * sizeof *t->e);
  }
  fd_entry *e = &t->e[t->n++];
  memset(e, 0, sizeof *e);
  e->fd[0] = e->fd[1] = -1;
  return e;
}

/* N. The entry and end fd currently maps to, NULL if none. */
static fd_entry *current(fd_table *t, fdmap *m, int fd, int *end) {
  int v = *cell(m, fd);
  if (!v) return NULL;
  *end = v & 1;
  return &t->e[v / 2 - 1];
}

/* N. Ends fd's current entry at time ns (exactly if a traced close says so). */
static void end_current(fd_table *t, fdmap *m, int fd, uint64_t ns, const fd_call *close) {
  int k;
  fd_entry *e = current(t, m, fd, &k);
  if (!e) return;
  e->closed_ns[k] = ns;
  e->closed_exact[k] = close != NULL;
  if (close) e->close[k] = *close;
  *cell(m, fd) = 0;
}

/* N. A creating call: a new entry owns its fds. */
static void on_create(fd_table *t, fdmap *m, const fd_call *c) {
  for (int k = 0; k < 2; k++)
    if (c->fi->fd[k] >= 0) end_current(t, m, c->fi->fd[k], c->fi->time_ns, NULL);
  fd_entry *e = add_entry(t);
  e->create = *c;
  for (int k = 0; k < 2; k++) {
    e->fd[k] = c->fi->fd[k], e->ino[k] = c->fi->ino[k];
    if (e->fd[k] >= 0) *cell(m, e->fd[k]) = (int)t->n * 2 + k;
  }
}

/* N. bind, listen, connect: joins the entry of the fd (one is made for a socket created
 * by an untraced call, or a number whose file changed without a traced call). */
static void on_use(fd_table *t, fdmap *m, const fd_call *c, enum prof_fd_call call) {
  int fd = c->fi->fd[0], k = 0;
  if (fd < 0) return;
  fd_entry *e = current(t, m, fd, &k);
  if (!e || (e->ino[k] && c->fi->ino[0] && e->ino[k] != c->fi->ino[0])) {
    end_current(t, m, fd, c->fi->time_ns, NULL);
    e = add_entry(t);
    e->fd[0] = fd, e->ino[0] = c->fi->ino[0], k = 0;
    *cell(m, fd) = (int)t->n * 2;
  }
  fd_call *slot = call == FDC_BIND ? &e->bind : call == FDC_LISTEN ? &e->listen : &e->connect;
  /* A failed call only fills an empty slot: the call that worked says more. */
  if (!slot->r || !fd_call_failed(c)) *slot = *c;
}

/* N. True if fd is open and still the file with inode ino. */
static bool still_open(int fd, uint64_t ino) {
  struct stat st;
  return fd >= 0 && fstat(fd, &st) == 0 && (!ino || (uint64_t)st.st_ino == ino);
}

/* N. Open or closed now, and what the memory knows about when. */
static void settle(fd_table *t, fdmap *m, fd_entry *e) {
  const fd_call *first = fd_entry_first(e);
  sighting *s = remember(first->r->seq, first->fi->time_ns);
  for (int k = 0; k < 2; k++) {
    if (e->fd[k] < 0) continue;
    int end;
    bool current_here = current(t, m, e->fd[k], &end) == e && end == k;
    e->open[k] = current_here && still_open(e->fd[k], e->ino[k]);
    if (e->open[k]) s->seen_open[k] = t->now_ns;
    else if (current_here && !s->closed[k]) s->closed[k] = t->now_ns;
    if (current_here && !e->open[k]) e->closed_ns[k] = s->closed[k];
    e->seen_open_ns[k] = s->seen_open[k] > first->fi->time_ns ? s->seen_open[k]
                                                               : first->fi->time_ns;
  }
}

/* N. */
void fd_table_build(fd_table *t) {
  memset(t, 0, sizeof *t);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  t->now_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  calls cs = {0};
  prof_samples_each(collect, &cs); /* only records carry fd info: counted samples pass */
  qsort(cs.c, cs.n, sizeof *cs.c, by_seq);
  fdmap m = {0};
  for (size_t i = 0; i < cs.n; i++) {
    const fd_call *c = &cs.c[i];
    enum prof_fd_call call = prof.opts.events[c->r->event].fd_call;
    if (call == FDC_BIND || call == FDC_LISTEN || call == FDC_CONNECT) on_use(t, &m, c, call);
    else if (call == FDC_CLOSE && c->fi->fd[0] >= 0)
      end_current(t, &m, c->fi->fd[0], c->fi->time_ns, c);
    else if (call != FDC_CLOSE) on_create(t, &m, c);
  }
  for (size_t i = 0; i < t->n; i++) settle(t, &m, &t->e[i]);
  free(m.slot);
  free(cs.c);
}

/* N. */
void fd_table_free(fd_table *t) {
  free(t->e);
  t->e = NULL;
  t->n = t->cap = 0;
}

/* N. */
const fd_call *fd_entry_first(const fd_entry *e) {
  if (e->create.r) return &e->create;
  return e->bind.r ? &e->bind : e->listen.r ? &e->listen : &e->connect;
}

/* N. */
bool fd_call_failed(const fd_call *c) {
  return c->r && c->fi->ret < 0 && c->fi->ret != -EINPROGRESS;
}

/* N. */
bool fd_entry_is_open(const fd_entry *e) {
  return e->open[0] || e->open[1];
}
