/*
 * unload.c - the registry of class unload / redefinition handlers.
 *
 * Several profilers may share one JVM, so any number of (handler, arg) pairs can be
 * registered. Notification copies the list under the lock and calls the handlers outside
 * it, so a handler may register or deregister others, and handlers for different classes
 * may run concurrently.
 */
#include <pthread.h>
#include <stdlib.h>

#include "internal.h"

typedef struct {
  ASGST_ClassUnloadHandler fun;
  void *arg;
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry *entries;
static int count, capacity;

/* N. */
void ASGST_RegisterClassUnloadHandler(ASGST_ClassUnloadHandler h, void *arg) {
  if (h == NULL) return;
  asgst__api_provide_services();
  pthread_mutex_lock(&lock);
  if (count == capacity) {
    int cap = capacity ? capacity * 2 : 8;
    entry *grown = realloc(entries, (size_t)cap * sizeof *grown);
    if (grown == NULL) {
      pthread_mutex_unlock(&lock);
      return;
    }
    entries = grown;
    capacity = cap;
  }
  entries[count++] = (entry){h, arg};
  pthread_mutex_unlock(&lock);
}

/* N. */
bool ASGST_DeregisterClassUnloadHandler(ASGST_ClassUnloadHandler h, void *arg) {
  bool found = false;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < count; i++) {
    if (entries[i].fun == h && entries[i].arg == arg) {
      entries[i] = entries[--count];
      found = true;
      break;
    }
  }
  pthread_mutex_unlock(&lock);
  return found;
}

/* N. */
void asgst__api_notify_class_unload(ASGST_Class k, ASGST_Method *methods, int count_methods,
                                    bool redefined) {
  pthread_mutex_lock(&lock);
  int n = count;
  entry *copy = n ? malloc((size_t)n * sizeof *copy) : NULL;
  for (int i = 0; copy && i < n; i++) copy[i] = entries[i];
  pthread_mutex_unlock(&lock);
  for (int i = 0; copy && i < n; i++) copy[i].fun(k, methods, count_methods, redefined, copy[i].arg);
  free(copy);
}
