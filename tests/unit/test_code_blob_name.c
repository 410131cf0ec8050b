/* test_code_blob_name.c - ASGST_GetCodeBlobName (the extension that names code-cache
 * blobs) as documented for VMs without a code cache: no backend gives
 * ASGST_NOT_INITIALIZED, the synthetic VM ASGST_UNSUPPORTED, bad arguments
 * ASGST_INVALID_ARGUMENT before anything else; the blob key and the buffer are left as
 * documented. The live answers (names of real blobs) are checked on every JDK by
 * tests/jvm/test_native_frames.sh. */
#include "test_synthetic_util.h"

static ASGST_SynthVM *vm;
static ASGST_SynthBlob *stub;

/* Runs first, before any VM is activated in this process. */
static void no_backend_is_not_initialized(void **state) {
  (void)state;
  char buf[32] = "untouched";
  const void *blob = buf;
  const void *pc = (void *)no_backend_is_not_initialized;
  assert_int_equal(ASGST_GetCodeBlobName(pc, buf, sizeof buf, &blob), ASGST_NOT_INITIALIZED);
  assert_null(blob);
  assert_string_equal(buf, "untouched");
}

/* The synthetic VM has stub blobs but no names for them: the capability is absent. */
static void synthetic_vm_is_unsupported(void **state) {
  (void)state;
  vm = ASGST_SynthCreateVM();
  assert_int_equal(activate(vm), 0);
  stub = ASGST_SynthDeclareStub(vm, 256);
  assert_non_null(stub);
  char buf[32] = "untouched";
  const void *blob = buf;
  const char *in_stub = (const char *)ASGST_SynthBlobStart(stub) + 16;
  assert_int_equal(ASGST_GetCodeBlobName(in_stub, buf, sizeof buf, &blob), ASGST_UNSUPPORTED);
  assert_null(blob);
  assert_string_equal(buf, "untouched");
  /* A C pc, and a length query (no buffer, no key), answer the same. */
  assert_int_equal(ASGST_GetCodeBlobName((void *)synthetic_vm_is_unsupported, NULL, 0, NULL),
                   ASGST_UNSUPPORTED);
}

/* Bad arguments are told whatever the backend, and the key is cleared. */
static void bad_arguments(void **state) {
  (void)state;
  char buf[8];
  const void *blob = buf;
  const void *pc = ASGST_SynthBlobStart(stub);
  assert_int_equal(ASGST_GetCodeBlobName(NULL, buf, sizeof buf, &blob), ASGST_INVALID_ARGUMENT);
  assert_null(blob);
  assert_int_equal(ASGST_GetCodeBlobName(pc, buf, -1, NULL), ASGST_INVALID_ARGUMENT);
  assert_int_equal(ASGST_GetCodeBlobName(pc, NULL, 8, NULL), ASGST_INVALID_ARGUMENT);
  assert_int_equal(ASGST_GetCodeBlobName(pc, NULL, INT32_MIN, NULL), ASGST_INVALID_ARGUMENT);
  ASGST_SynthDestroyVM(vm);
  /* With the VM gone there is no backend again; arguments are still checked first. */
  assert_int_equal(ASGST_GetCodeBlobName(NULL, NULL, 0, NULL), ASGST_INVALID_ARGUMENT);
  pc = (void *)bad_arguments;
  assert_int_equal(ASGST_GetCodeBlobName(pc, NULL, 0, NULL), ASGST_NOT_INITIALIZED);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(no_backend_is_not_initialized),
      cmocka_unit_test(synthetic_vm_is_unsupported),
      cmocka_unit_test(bad_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
