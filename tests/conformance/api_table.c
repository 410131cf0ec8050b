/*
 * api_table.c - see api_table.h.
 */
#include "api_table.h"

#include <dlfcn.h>
#include <string.h>

/* N. Appends one name to the space separated list, truncating silently at cap. */
static void note_missing(char *missing, size_t cap, const char *name) {
  size_t len = strlen(missing);
  if (len + strlen(name) + 8 < cap) {
    strcat(missing, len ? " ASGST_" : "ASGST_");
    strcat(missing, name);
  }
}

/* N. */
int conf_api_load(void *handle, conf_api *api, char *missing, size_t cap) {
  int n = 0;
  memset(api, 0, sizeof *api);
  if (cap) missing[0] = '\0';
  /* The cast goes through void * because ISO C has no object-to-function conversion; dlsym's
   * result is a function address on every platform with dlsym. */
#define CONF_RESOLVE(name)                                      \
  *(void **)&api->name = dlsym(handle, "ASGST_" #name);          \
  if (!api->name) n++, note_missing(missing, cap, #name);
  CONF_CONTRACT_FNS(CONF_RESOLVE)
#undef CONF_RESOLVE
#define CONF_RESOLVE_EXT(name) *(void **)&api->name = dlsym(handle, "ASGST_" #name);
  CONF_EXTENSION_FNS(CONF_RESOLVE_EXT)
#undef CONF_RESOLVE_EXT
  return n;
}
