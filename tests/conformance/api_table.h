/*
 * api_table.h - the ASGST functions of an implementation under test, resolved by name with
 * dlsym, so that any library exporting the contract's names (ours, the AsyncGetCallTrace
 * shim, a patched libjvm) can be checked. Shared by the runner and the test agent.
 */
#ifndef ASGST_CONF_API_TABLE_H
#define ASGST_CONF_API_TABLE_H

#include <stddef.h>

#include "asgst.h"

/* The contract's functions, which every implementation must export: those include/asgst.h
 * declares above its "Library extensions" line, less the ones marked "Extension". */
#define CONF_CONTRACT_FNS(X)                                                              \
  X(Capabilities) X(RunWithIterator) X(RunWithIteratorFromFrame) X(NextFrame)             \
  X(RewindIterator) X(State) X(ThreadState) X(GetMethodInfo) X(GetClassInfo)              \
  X(GetMethodIdNum) X(GetClassIdNum) X(GetClass) X(GetMethodLineNumberTable)              \
  X(GetMethodLineNumber) X(MethodToJMethodID) X(JMethodIDToMethod) X(ClassToJClass)       \
  X(JClassToClass) X(RegisterClassUnloadHandler) X(DeregisterClassUnloadHandler)          \
  X(RegisterQueue) X(DeregisterQueue) X(Enqueue) X(GetEnqueuableElement)                  \
  X(GetQueueElement) X(ResizeQueue) X(GetQueueSizeInfo) X(SetOnQueueProcessingStart)      \
  X(SetOnQueueProcessingEnd)

/* Our library's extensions (marked in asgst.h): checked only where exported. */
#define CONF_EXTENSION_FNS(X)                                                             \
  X(Initialize) X(InitializeError) X(RunWithIteratorOnThread) X(ErrorName)

/* __typeof__ (a GNU C extension gcc accepts with -std=c11) takes each pointer type from
 * the prototype in asgst.h, so the table cannot drift from the header. */
#define CONF_API_FIELD(name) __typeof__(&ASGST_##name) name;
typedef struct {
  CONF_CONTRACT_FNS(CONF_API_FIELD)
  CONF_EXTENSION_FNS(CONF_API_FIELD)
} conf_api;
#undef CONF_API_FIELD

/* N. Resolves every name in `handle` (a dlopen handle). Writes the missing contract names,
 * space separated, into missing[cap]; returns how many are missing (extensions may be). */
int conf_api_load(void *handle, conf_api *api, char *missing, size_t cap);

#endif
