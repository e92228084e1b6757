/* driver_gate.c: a process-wide reader/writer lock between driver calls made without the GIL and the
 * release or reset of a context (driver_gate.h says why). */
#include "driver/driver_gate.h"

#include <pthread.h>

static pthread_rwlock_t gate;
static pthread_once_t gate_once = PTHREAD_ONCE_INIT;
static _Thread_local int closed_here; /* nesting depth of driver_gate_close in this thread */

static void gate_init(void)
{
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    /* glibc prefers readers by default: four threads copying in turn would keep a reset out forever */
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&gate, &attr);
    pthread_rwlockattr_destroy(&attr);
}

void driver_gate_enter(void)
{
    if (closed_here)
        return;
    pthread_once(&gate_once, gate_init);
    pthread_rwlock_rdlock(&gate);
}

void driver_gate_leave(void)
{
    if (!closed_here)
        pthread_rwlock_unlock(&gate);
}

void driver_gate_close(void)
{
    if (closed_here++)
        return;
    pthread_once(&gate_once, gate_init);
    Py_BEGIN_ALLOW_THREADS /* the calls in flight finish without the GIL */
    pthread_rwlock_wrlock(&gate);
    Py_END_ALLOW_THREADS
}

void driver_gate_open(void)
{
    if (--closed_here == 0)
        pthread_rwlock_unlock(&gate);
}
