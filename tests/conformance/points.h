/*
 * points.h - the contract points of the conformance suite, one X-macro row each:
 * X(id, text). The runner prints them in this order, one TAP line each; the test agent
 * reports a result per id from inside the JVM. README.md names, for each point, where
 * include/asgst.h states the rule it checks.
 */
#ifndef ASGST_CONF_POINTS_H
#define ASGST_CONF_POINTS_H

#define CONF_POINTS(X)                                                                          \
  X(C01, "every contract function resolves in the implementation")                           \
  X(C02, "ASGST_Capabilities uses only the defined bits")                                    \
  X(I01, "RunWithIterator(NULL) on a Java thread returns ASGST_JAVA_TRACE, fun called once") \
  X(I02, "Java frames come callee first and equal JVMTI GetStackTrace (method, bci)")        \
  X(I03, "without INCLUDE_NON_JAVA_FRAMES the trace is exactly the Java frames")             \
  X(I04, "INCLUDE_NON_JAVA_FRAMES adds C frames, Java frames stay an ordered subsequence")   \
  X(I05, "END_ON_FIRST_JAVA_FRAME ends the walk with the first frame that has bytecode")     \
  X(I06, "RewindIterator restarts at the first frame")                                       \
  X(I07, "State is 1 before each frame, then NextFrame's end code; NextFrame stays at 0")    \
  X(I08, "RunWithIteratorFromFrame starts at the given frame")                               \
  X(I09, "ThreadState of a Java thread in native: JVMTI bits, ALIVE set, subset of JVMTI's") \
  X(I10, "thread unknown to the VM: no Java frames, NON_JAVA_TRACE or NO_THREAD, state 0")   \
  X(I11, "thread unknown to the VM with INCLUDE_NON_JAVA_FRAMES: NON_JAVA_TRACE, C frames")  \
  X(I12, "walks from a signal handler's ucontext show the running method and its callers")   \
  X(I13, "every walk returns a trace kind or an error code in the contract's ranges")        \
  X(F01, "a native method's frame is ASGST_FRAME_JAVA_NATIVE with bci -1")                   \
  X(T01, "-Xint: every Java frame has comp_level 0, none is inlined")                        \
  X(T02, "C1 only (TieredStopAtLevel=1): compiled methods have comp_level 1")                \
  X(T03, "C2 only (-TieredCompilation): compiled methods have comp_level 4")                 \
  X(T04, "inlined method: ASGST_FRAME_JAVA_INLINED, before its physical frame, same sp/fp")  \
  X(M01, "method name, signature, generic signature, modifiers equal JVMTI's")               \
  X(M02, "class name (internal form) and modifiers equal JVMTI's")                           \
  X(M03, "line number table and line of a bci equal JVMTI's")                                \
  X(M04, "strings truncated to capacity and NUL-terminated; a NULL buffer skips the field")  \
  X(M05, "idnums and GetClass agree with the method and class info")                         \
  X(M06, "jmethodID and jclass conversions agree with JVMTI's")                              \
  X(E01, "ASGST_State(NULL) is 0")                                                           \
  X(E02, "NULL method/class handles give NULL/0 fields, no line table, line -1")             \
  X(E03, "queue functions: absent capability is an error; Enqueue(NULL) is ENQUEUE_NO_QUEUE")\
  X(U01, "class unload handlers: every registered handler, before the handles are invalid")  \
  X(U02, "DeregisterClassUnloadHandler: true for a registered pair, then false")             \
  X(Q01, "queue: Enqueue, GetQueueElement both ends and out of bounds, SizeInfo")            \
  X(Q02, "queue: ENQUEUE_FULL_QUEUE at capacity, attempts count failed enqueues")            \
  X(Q03, "queue: start hook, fun for each element oldest first, end hook, queue emptied")    \
  X(Q04, "queue: GetEnqueuableElement fills what Enqueue stores, arg NULL")                  \
  X(X01, "extension ASGST_ErrorName names the contract's codes")                             \
  X(X02, "extension ASGST_RunWithIteratorOnThread walks another thread; bad id is an error") \
  X(X03, "extension ASGST_Initialize: a second call returns 0")

#define CONF_POINT_ENUM(id, text) CONF_##id,
enum { CONF_POINTS(CONF_POINT_ENUM) CONF_NPOINTS };
#undef CONF_POINT_ENUM

#endif
