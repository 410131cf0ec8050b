/*
 * fd_table.c - the live fd table: the descriptors of the traced fd calls, kept as the
 * calls come (fd_events.c's ring, read every few milliseconds and before every report),
 * with memory that stays flat whatever the rate of opens and closes:
 *   - each open descriptor whole: its creating call and its bind, listen, connect (fd
 *     info, thread, time, stack id in the fd stack store), exact;
 *   - the newest FD_RECENT closed ones whole, with their close;
 *   - every closed one counted in a history per (first call, stack, kind), at most
 *     FD_HISTORIES of them; beyond, counted as "other".
 *
 * A creating call (socket, accept, open, pipe...) starts an entry and ends the one that
 * held the number before (the number was free again, so that one was closed by then);
 * bind, listen and connect (also failed ones) join the entry of their fd; a traced close
 * ends it exactly. The handler of a close on one thread may come after another thread
 * reopened the number: the close carries the inode the number holds when its handler ran
 * (fd_capture.c), and one that names the current entry's own file is an earlier
 * holder's, left to the reopening call to end. At report time each open entry is checked
 * against the process (same fd number, same inode): one that is not is ended there, its
 * close only known to lie between the last time it was seen open and now.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fd/fd_table.h"
#include "walk/walk.h"

/* A call's storage: an fd_call's r points at its start. */
typedef struct {
  prof_record r;
  prof_fdinfo fi;
  uint32_t stack; /* its id in the fd stack store */
} owned_call;

typedef struct {
  fd_entry *e;
  int end;
} map_cell;

#define HIST_SLOTS (2 * FD_HISTORIES) /* open addressing: twice the cap, probes stay short */
#define MAX_FD_NUMBER (1 << 24)       /* map cells beyond are not kept */

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  map_cell *map; /* by fd number: the entry that holds it */
  size_t cap;
  fd_entry *recent[FD_RECENT]; /* a ring, newest at recent_pos - 1 */
  size_t nrecent, recent_pos;
  fd_history *hist[FD_HISTORIES];
  uint16_t slot[HIST_SLOTS]; /* index + 1 into hist, 0 free */
  size_t nhist;
  uint64_t other, closed, calls;
} T;

/* ---- Calls and entries ---- */

/* N. A call of its own made from a ring event. */
static fd_call own_call(const prof_fd_event *ev) {
  owned_call *o = calloc(1, sizeof *o);
  int n = 0;
  const prof_frame *frames = prof_fd_stack(ev->stack, &n);
  o->r.event = ev->event;
  o->r.tid = ev->tid;
  o->r.walk_result = ev->walk_result;
  o->r.seq = ev->seq;
  o->r.nframes = (uint16_t)n;
  o->fi = ev->fi;
  o->stack = ev->stack;
  return (fd_call){&o->r, frames, &o->fi};
}

/* N. A copy of call c (its own storage). */
static fd_call copy_call(const fd_call *c) {
  owned_call *o = malloc(sizeof *o);
  *o = *(const owned_call *)(const void *)c->r;
  return (fd_call){&o->r, c->frames, &o->fi};
}

/* N. The fd stack store id of a call of the table. */
static uint32_t stack_of(const fd_call *c) {
  return ((const owned_call *)(const void *)c->r)->stack;
}

/* N. */
static void free_call(fd_call *c) {
  free((void *)c->r); /* the owned_call starts with r */
  memset(c, 0, sizeof *c);
}

/* N. Puts ev into slot (a call that was there is dropped). */
static void set_call(fd_call *slot, const prof_fd_event *ev) {
  if (slot->r) free_call(slot);
  *slot = own_call(ev);
}

/* N. */
static void free_entry(fd_entry *e) {
  fd_call *calls[] = {&e->create, &e->bind, &e->listen, &e->connect, &e->close[0], &e->close[1]};
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
    if (calls[i]->r) free_call(calls[i]);
  free(e);
}

/* N. The map cell of fd (grown to hold it); NULL beyond MAX_FD_NUMBER. */
static map_cell *cell(int fd) {
  if (fd < 0 || fd >= MAX_FD_NUMBER) return NULL;
  if ((size_t)fd >= T.cap) {
    size_t ncap = T.cap ? T.cap : 1024;
    while (ncap <= (size_t)fd) ncap *= 2;
    T.map = realloc(T.map, ncap * sizeof *T.map);
    memset(T.map + T.cap, 0, (ncap - T.cap) * sizeof *T.map);
    T.cap = ncap;
  }
  return &T.map[fd];
}

/* N. Holds fd's end k of e in the map. */
static void hold(fd_entry *e, int k) {
  map_cell *m = cell(e->fd[k]);
  if (m) *m = (map_cell){e, k};
}

/* ---- Closed entries: histories and the newest whole ---- */

/* N. The history slot of a key, found or free. */
static uint16_t *hist_slot(uint16_t event, uint32_t stack, const char *kind) {
  uint64_t h = ((uint64_t)event << 32 | stack) * 0x9E3779B97F4A7C15ull;
  for (const char *p = kind; *p; p++) h = (h ^ (uint8_t)*p) * 0x100000001B3ull;
  for (size_t i = (h >> 20) & (HIST_SLOTS - 1);; i = (i + 1) & (HIST_SLOTS - 1)) {
    fd_history *x = T.slot[i] ? T.hist[T.slot[i] - 1] : NULL;
    if (!x || (x->event == event && x->stack == stack && strcmp(x->kind, kind) == 0))
      return &T.slot[i];
  }
}

/* N. Counts closed entry e in its history. */
static void count_closed(const fd_entry *e) {
  const fd_call *first = fd_entry_first(e);
  char what[400], kind[24];
  fd_describe(e, what, sizeof what);
  fd_kind(what, kind, sizeof kind);
  T.closed++;
  uint16_t ev = first->r->event;
  uint32_t id = stack_of(first);
  uint16_t *s = hist_slot(ev, id, kind);
  if (!*s) {
    if (T.nhist == FD_HISTORIES) {
      T.other++;
      return;
    }
    fd_history *x = calloc(1, sizeof *x);
    x->event = ev, x->stack = id;
    snprintf(x->kind, sizeof x->kind, "%s", kind);
    x->first = copy_call(first);
    T.hist[T.nhist++] = x;
    *s = (uint16_t)T.nhist;
  }
  fd_history *x = T.hist[*s - 1];
  int k = e->fd[1] >= 0 && e->closed_ns[1] > e->closed_ns[0] ? 1 : 0;
  x->count++;
  x->exact += e->closed_exact[k];
  x->last_fd = e->fd[0];
  x->last_closed_ns = e->closed_ns[k];
  snprintf(x->last_what, sizeof x->last_what, "%.*s", (int)sizeof x->last_what - 1, what);
}

/* N. Entry e has no open end left: counted, kept whole among the newest. */
static void finish(fd_entry *e) {
  count_closed(e);
  if (T.nrecent == FD_RECENT) free_entry(T.recent[T.recent_pos]);
  else T.nrecent++;
  T.recent[T.recent_pos] = e;
  T.recent_pos = (T.recent_pos + 1) % FD_RECENT;
}

/* N. Ends end k of e at ns (exactly with close, a traced close event). */
static void end_end(fd_entry *e, int k, uint64_t ns, const prof_fd_event *close) {
  map_cell *m = cell(e->fd[k]);
  if (m && m->e == e && m->end == k) m->e = NULL;
  e->open[k] = false;
  e->closed_ns[k] = ns;
  e->closed_exact[k] = close != NULL;
  if (close) set_call(&e->close[k], close);
  if (!e->open[0] && !e->open[1]) finish(e);
}

/* N. Ends whatever entry holds fd (a new call got the number: closed by ns). */
static void end_holder(int fd, uint64_t ns) {
  map_cell *m = cell(fd);
  if (m && m->e) end_end(m->e, m->end, ns, NULL);
}

/* N. A new entry (zeroed, no fds). */
static fd_entry *new_entry(void) {
  fd_entry *e = calloc(1, sizeof *e);
  e->fd[0] = e->fd[1] = -1;
  return e;
}

/* N. Opens end k of e on fd with inode ino, seen at ns. */
static void open_end(fd_entry *e, int k, int fd, uint64_t ino, uint64_t ns) {
  e->fd[k] = fd, e->ino[k] = ino;
  e->open[k] = true;
  e->seen_open_ns[k] = ns;
  hold(e, k);
}

/* ---- Applying calls ---- */

/* N. A creating call: a new entry owns its fds. */
static void on_create(const prof_fd_event *ev) {
  const prof_fdinfo *fi = &ev->fi;
  if (fi->fd[0] < 0 && fi->fd[1] < 0) return;
  for (int k = 0; k < 2; k++)
    if (fi->fd[k] >= 0) end_holder(fi->fd[k], fi->time_ns);
  fd_entry *e = new_entry();
  set_call(&e->create, ev);
  for (int k = 0; k < 2; k++)
    if (fi->fd[k] >= 0) open_end(e, k, fi->fd[k], fi->ino[k], fi->time_ns);
}

/* N. bind, listen, connect: joins the entry of the fd (one is made for a socket created
 * by an untraced call, or a number whose file changed without a traced call). */
static void on_use(const prof_fd_event *ev, enum prof_fd_call call) {
  const prof_fdinfo *fi = &ev->fi;
  int fd = fi->fd[0];
  map_cell *m = cell(fd);
  if (!m) return;
  fd_entry *e = m->e;
  int k = m->end;
  if (!e || (e->ino[k] && fi->ino[0] && e->ino[k] != fi->ino[0])) {
    end_holder(fd, fi->time_ns);
    e = new_entry();
    k = 0;
    open_end(e, 0, fd, fi->ino[0], fi->time_ns);
  }
  fd_call *slot = call == FDC_BIND ? &e->bind : call == FDC_LISTEN ? &e->listen : &e->connect;
  fd_call c = own_call(ev);
  /* A failed call only fills an empty slot: the call that worked says more. */
  if (!slot->r || !fd_call_failed(&c)) {
    if (slot->r) free_call(slot);
    *slot = c;
  } else {
    free_call(&c);
  }
}

/* N. A traced close: ends the entry of its fd, unless the number holds that entry's own
 * file again (the header says why). */
static void on_close(const prof_fd_event *ev) {
  map_cell *m = cell(ev->fi.fd[0]);
  if (!m || !m->e) return; /* an fd not seen created (before the start, untraced) */
  if (ev->fi.ino[0] && m->e->ino[m->end] == ev->fi.ino[0]) return;
  end_end(m->e, m->end, ev->fi.time_ns, ev);
}

/* N. */
static void apply(const prof_fd_event *ev) {
  if (ev->event >= prof.opts.nevents) return;
  T.calls++;
  enum prof_fd_call call = prof.opts.events[ev->event].fd_call;
  if (call == FDC_BIND || call == FDC_LISTEN || call == FDC_CONNECT) on_use(ev, call);
  else if (call == FDC_CLOSE) on_close(ev);
  else if (call != FDC_NONE) on_create(ev);
}

/* N. Under table_lock. */
static void drain_locked(void) {
  prof_fd_event ev;
  while (prof_fd_events_pop(&ev)) apply(&ev);
}

/* N. */
void prof_fd_drain(void) {
  pthread_mutex_lock(&table_lock);
  drain_locked();
  pthread_mutex_unlock(&table_lock);
}

/* N. Forgets every entry and history. Under table_lock. */
static void forget_all(void) {
  for (size_t i = 0; i < T.cap; i++) {
    fd_entry *e = T.map[i].e;
    if (!e) continue;
    for (int k = 0; k < 2; k++) {
      map_cell *m = cell(e->fd[k]);
      if (m && m->e == e) m->e = NULL;
    }
    free_entry(e);
  }
  for (size_t i = 0; i < T.nrecent; i++) free_entry(T.recent[i]);
  for (size_t i = 0; i < T.nhist; i++) {
    free_call(&T.hist[i]->first);
    free(T.hist[i]);
  }
  free(T.map);
  memset(&T, 0, sizeof T);
}

/* N. */
int prof_fd_start(void) {
  bool traced = false;
  for (int i = 0; i < prof.opts.nevents; i++) traced |= prof.opts.events[i].fd_call != FDC_NONE;
  pthread_mutex_lock(&table_lock);
  forget_all();
  int rc = traced ? prof_fd_events_map() : 0;
  prof_fd_events_reset();
  /* Traced fd calls reach the table through the walk room's hook (it stays below us). */
  prof_walk_set_fd_taker(traced && rc == 0 ? prof_fd_note : NULL);
  pthread_mutex_unlock(&table_lock);
  return rc;
}

/* ---- The view ---- */

/* N. True if fd is open and still the file with inode ino. */
static bool still_open(int fd, uint64_t ino) {
  struct stat st;
  return fd >= 0 && fstat(fd, &st) == 0 && (!ino || (uint64_t)st.st_ino == ino);
}

/* N. Checks every open end against the process at now. */
static void settle(uint64_t now) {
  for (size_t i = 0; i < T.cap; i++) {
    fd_entry *e = T.map[i].e;
    int k = T.map[i].end;
    if (!e) continue;
    if (still_open(e->fd[k], e->ino[k])) e->seen_open_ns[k] = now;
    else end_end(e, k, now, NULL);
  }
}

/* N. Most closed first. */
static int by_count(const void *a, const void *b) {
  uint64_t x = (*(fd_history *const *)a)->count, y = (*(fd_history *const *)b)->count;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* N. */
void fd_view_take(fd_view *v) {
  pthread_mutex_lock(&table_lock);
  memset(v, 0, sizeof *v);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  v->now_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  drain_locked();
  settle(v->now_ns);
  v->open = calloc(T.cap + 1, sizeof *v->open);
  for (size_t i = 0; i < T.cap; i++) {
    fd_entry *e = T.map[i].e;
    /* A pair whose both ends are open is listed once, at its first end. */
    if (e && (T.map[i].end == 0 || !e->open[0])) v->open[v->nopen++] = e;
  }
  v->recent = calloc(FD_RECENT, sizeof *v->recent);
  for (size_t i = 0; i < T.nrecent; i++)
    v->recent[v->nrecent++] = T.recent[(T.recent_pos + FD_RECENT - 1 - i) % FD_RECENT];
  v->hist = calloc(T.nhist + 1, sizeof *v->hist);
  memcpy(v->hist, T.hist, T.nhist * sizeof *v->hist);
  v->nhist = T.nhist;
  qsort(v->hist, v->nhist, sizeof *v->hist, by_count);
  v->other = T.other, v->closed = T.closed, v->calls = T.calls;
}

/* N. */
void fd_view_release(fd_view *v) {
  free(v->open);
  free(v->recent);
  free(v->hist);
  memset(v, 0, sizeof *v);
  pthread_mutex_unlock(&table_lock);
}

/* N. */
void prof_fd_write_summary(FILE *out) {
  bool traced = false;
  uint64_t lost = 0;
  for (int i = 0; i < prof.opts.nevents; i++)
    if (prof.opts.events[i].fd_call != FDC_NONE)
      traced = true, lost += atomic_load(&prof.stats.lost_buffer[i]);
  if (!traced) return;
  prof_fd_figures f;
  prof_fd_events_figures(&f);
  pthread_mutex_lock(&table_lock);
  drain_locked();
  size_t nopen = 0;
  for (size_t i = 0; i < T.cap; i++) nopen += T.map[i].e && (T.map[i].end == 0 || !T.map[i].e->open[0]);
  fprintf(out, "fd table: %llu calls, %zu open, %llu closed in %zu histories (cap %d; beyond "
          "it %llu), fd stacks %zu of %zu (%llu calls without one); fd calls lost %llu (ring "
          "of %zu full)\n", (unsigned long long)T.calls, nopen, (unsigned long long)T.closed,
          T.nhist, FD_HISTORIES, (unsigned long long)T.other, f.stacks, f.max_stacks,
          (unsigned long long)f.stacks_full, (unsigned long long)lost, f.ring_cells);
  pthread_mutex_unlock(&table_lock);
}
