/* driver_gate.h: no context is destroyed under a driver call in flight.
 *
 * CUDA leaves undefined what happens to a call running in one thread while another thread destroys
 * its context (at worst, a crash inside the driver). Every driver call made with the GIL released
 * holds the gate shared (CU_BEGIN_ALLOW_THREADS ... CU_END_ALLOW_THREADS); a context's release or a
 * device's reset holds it exclusive (driver_gate_close ... driver_gate_open). So a reset starts once
 * the calls in flight are done, and calls that begin meanwhile wait for it to end (then fail cleanly
 * on a dead handle). Closers are preferred, so a stream of copies cannot starve a reset. Driver calls
 * made with the GIL held need no gate: the closer holds the GIL too, except while it waits. */
#ifndef NUMBA_CUDA_C_DRIVER_GATE_H
#define NUMBA_CUDA_C_DRIVER_GATE_H

#include <Python.h>

/* Shared, without the GIL. A no-op in the thread that holds the gate closed (its own frees). */
void driver_gate_enter(void);
void driver_gate_leave(void);

/* Exclusive, called with the GIL held (released while waiting); nests in one thread. Never call it
 * while this thread is counted as a user of a context's staging ring (context_free_staging first). */
void driver_gate_close(void);
void driver_gate_open(void);

#define CU_BEGIN_ALLOW_THREADS                                                                                     \
    Py_BEGIN_ALLOW_THREADS                                                                                         \
    driver_gate_enter();
#define CU_END_ALLOW_THREADS                                                                                       \
    driver_gate_leave();                                                                                           \
    Py_END_ALLOW_THREADS

#endif
