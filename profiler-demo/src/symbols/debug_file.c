/*
 * debug_file.c - finds the separate debug file of a stripped library, the places gdb and
 * perf look too:
 *   1. by build id: /usr/lib/debug/.build-id/<first byte>/<the other bytes>.debug, taken
 *      only if the file found carries the same build id;
 *   2. by the name in .gnu_debuglink, in the library's directory, in its .debug/
 *      subdirectory, and under /usr/lib/debug/ followed by that directory; taken only if
 *      the file's CRC-32 equals the one the link carries. The directory is tried both as
 *      the loader named it and resolved (/lib is a link to /usr/lib on merged-/usr systems,
 *      and a package may have installed either path).
 * Both routes also look under the library's own root: a library loaded from
 * ROOT/usr/lib/... (a distribution's libraries unpacked beside the system's, as the test
 * suite runs newer JDKs under their own glibc) finds its debug files in
 * ROOT/usr/lib/debug, where the same packages unpacked there put them.
 * All N: it reads whole files, at dump time only.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/debug_file.h"

#define DEBUG_ROOT "/usr/lib/debug"

/* N. The root a library was loaded from: the part of its path before "/usr/lib/", if
 * there is one ("" for the system's own libraries, which DEBUG_ROOT serves). */
static void own_root(const char *path, char *root, size_t len) {
  const char *usr = strstr(path, "/usr/lib/");
  snprintf(root, len, "%.*s", usr ? (int)(usr - path) : 0, path);
}

/* N. The build-id route under pre + DEBUG_ROOT. */
static bool by_build_id(const prof_elf *lib, const char *pre, prof_elf *dbg) {
  const uint8_t *id, *got;
  size_t n = prof_elf_build_id(lib, &id);
  if (n < 2 || n > 64) return false;
  char path[PATH_MAX];
  size_t at = (size_t)snprintf(path, sizeof path - 160, "%s%s/.build-id/", pre, DEBUG_ROOT);
  if (at >= sizeof path - 160) return false;
  for (size_t i = 0; i < n; i++) {
    at += (size_t)snprintf(path + at, sizeof path - at, "%02x", id[i]);
    if (i == 0) path[at++] = '/'; /* the first byte names the subdirectory */
  }
  snprintf(path + at, sizeof path - at, ".debug");
  if (!prof_elf_open(dbg, path)) return false;
  if (prof_elf_build_id(dbg, &got) == n && memcmp(got, id, n) == 0) return true;
  prof_elf_close(dbg);
  return false;
}

/* N. The CRC-32 of .gnu_debuglink: the common one of zip and Ethernet (reflected
 * polynomial 0xEDB88320, starting from and finished with all ones), a byte at a time
 * through a table made on first use. */
static uint32_t crc32_of(const uint8_t *p, size_t n) {
  static uint32_t table[256];
  if (!table[1])
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      table[i] = c;
    }
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; i++) c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

/* N. Opens dir/sub/name and keeps it if its CRC matches. */
static bool try_link(const char *pre, const char *dir, const char *sub, const char *name,
                     uint32_t crc, prof_elf *dbg) {
  char path[PATH_MAX];
  if (snprintf(path, sizeof path, "%s%s/%s%s", pre, dir, sub, name) >= (int)sizeof path)
    return false;
  if (!prof_elf_open(dbg, path)) return false;
  if (crc32_of(dbg->map, dbg->size) == crc) return true;
  prof_elf_close(dbg);
  return false;
}

/* N. The places of the debuglink route for one spelling of the directory: beside the
 * library, in its .debug/, under DEBUG_ROOT and, for a library under a root of its own,
 * under that root's DEBUG_ROOT. */
static bool in_dir(const char *dir, const char *name, uint32_t crc, prof_elf *dbg) {
  char root[PATH_MAX], pre[PATH_MAX];
  if (try_link("", dir, "", name, crc, dbg) || try_link("", dir, ".debug/", name, crc, dbg) ||
      try_link(DEBUG_ROOT, dir, "", name, crc, dbg))
    return true;
  own_root(dir, root, sizeof root);
  return root[0] && snprintf(pre, sizeof pre, "%s%s", root, DEBUG_ROOT) < (int)sizeof pre &&
         try_link(pre, dir + strlen(root), "", name, crc, dbg);
}

/* N. The debuglink route. The directory part of a path without a slash is ".". */
static bool by_debuglink(const prof_elf *lib, const char *path, prof_elf *dbg) {
  uint32_t crc;
  const char *name = prof_elf_debuglink(lib, &crc);
  if (!name) return false;
  char dir[PATH_MAX], real[PATH_MAX];
  const char *slash = strrchr(path, '/');
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
  if (in_dir(dir, name, crc, dbg)) return true;
  if (!realpath(path, real) || !(slash = strrchr(real, '/'))) return false;
  real[slash - real] = 0;
  return strcmp(real, dir) != 0 && in_dir(real, name, crc, dbg);
}

/* N. */
bool prof_debug_file_open(const prof_elf *lib, const char *path, prof_elf *dbg) {
  char root[PATH_MAX];
  own_root(path, root, sizeof root);
  return by_build_id(lib, "", dbg) || (root[0] && by_build_id(lib, root, dbg)) ||
         by_debuglink(lib, path, dbg);
}
