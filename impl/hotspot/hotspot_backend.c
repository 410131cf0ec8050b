/*
 * hotspot_backend.c - the hotspot backend's callback table: the walker (walker.h) for
 * frames, this directory's metadata, thread and conversion code for the rest.
 */
#include "hotspot.h"
#include "walker.h"

const asgst__backend asgst__hotspot_backend = {
    .name = "hotspot",
    .current_thread = asgst__hs_current_thread,
    .begin = asgst__hs_begin,
    .decode = asgst__hs_decode,
    .step = asgst__hs_step,
    .top_java_frame = asgst__hs_top_java_frame,
    .method_info = asgst__hs_method_info,
    .class_info = asgst__hs_class_info,
    .method_class = asgst__hs_method_class,
    .method_idnum = asgst__hs_method_idnum,
    .class_idnum = asgst__hs_class_idnum,
    .line_table = asgst__hs_line_table,
    .thread_state = asgst__hs_thread_state,
    .to_jmethodid = asgst__hs_to_jmethodid,
    .from_jmethodid = asgst__hs_from_jmethodid,
    .to_jclass = asgst__hs_to_jclass,
    .from_jclass = asgst__hs_from_jclass,
};
