// The libtracefs (1.6) functions rtgate uses, declared for C++. tracefs.h itself does not compile
// as C++ (its inline helpers pass an int where an enum is expected), so the prototypes are
// repeated here, exactly as the header has them; the library is linked as usual.
#pragma once

#include <sched.h>
#include <sys/types.h>

#include <cstddef>

extern "C" {
struct tracefs_instance;
const char* tracefs_tracing_dir(void);
tracefs_instance* tracefs_instance_create(const char* name);
tracefs_instance* tracefs_instance_alloc(const char* tracing_dir, const char* name);
int tracefs_instance_destroy(tracefs_instance* instance);
void tracefs_instance_free(tracefs_instance* instance);
int tracefs_trace_is_on(tracefs_instance* instance);
int tracefs_trace_on(tracefs_instance* instance);
int tracefs_trace_off(tracefs_instance* instance);
int tracefs_instance_set_buffer_size(tracefs_instance* instance, size_t size, int cpu);
ssize_t tracefs_instance_get_buffer_size(tracefs_instance* instance, int cpu);
int tracefs_instance_set_affinity(tracefs_instance* instance, const char* cpu_str);
int tracefs_event_enable(tracefs_instance* instance, const char* system, const char* event);
int tracefs_instance_file_open(tracefs_instance* instance, const char* file, int mode);
char* tracefs_instance_file_read(tracefs_instance* instance, const char* file, int* psize);
bool tracefs_file_exists(tracefs_instance* instance, const char* name);
int tracefs_instances_walk(int (*callback)(const char*, void*), void* context);
char* tracefs_instance_get_dir(tracefs_instance* instance);
int tracefs_instance_file_write(tracefs_instance* instance, const char* file, const char* str);
int tracefs_event_file_write(tracefs_instance* instance, const char* system, const char* event,
                             const char* file, const char* str);
struct tep_handle;
struct tep_event;
struct tep_record;
tep_handle* tracefs_local_events_system(const char* tracing_dir, const char* const* sys_names);
int tracefs_iterate_raw_events(tep_handle* tep, tracefs_instance* instance, cpu_set_t* cpus,
                               int cpu_size,
                               int (*callback)(tep_event*, tep_record*, int, void*),
                               void* callback_context);
}
