/* callbacks.h: the Python callbacks the driver runs on its own threads (stream callbacks, stream.c),
 * as every driver call must know of them. A callback takes the GIL, and the driver holds a stream's
 * lock while it runs: a driver call that may wait for one releases the GIL (CU_UNBLOCKED, errors.h).
 * And the driver forbids CUDA calls inside a callback (it waits for the callback, which would wait
 * for the driver): frees made there (a last reference dropped) are queued (deallocations.c). */
#ifndef NUMBA_CUDA_C_CALLBACKS_H
#define NUMBA_CUDA_C_CALLBACKS_H

/* Whether any callback is queued on any stream and not yet finished. Process-wide, as the driver's
 * callback threads are: a callback of one interpreter blocks the driver for all. */
int stream_callbacks_pending(void);
void stream_callbacks_count(int delta); /* +1 before a callback is queued, -1 when it ends or fails */

/* Whether this thread is running a callback now; set by the callback around the Python call. */
int stream_in_callback(void);
void stream_callback_running(int running);

#endif
