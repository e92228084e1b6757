/* callbacks.c: what driver calls must know of the callbacks the driver runs (callbacks.h). */
#include "driver/callbacks.h"

#include <stdatomic.h>

static atomic_long callbacks_pending;
static _Thread_local int in_stream_callback;

int stream_callbacks_pending(void)
{
    return atomic_load_explicit(&callbacks_pending, memory_order_relaxed) != 0;
}

void stream_callbacks_count(int delta)
{
    atomic_fetch_add_explicit(&callbacks_pending, delta, memory_order_relaxed);
}

int stream_in_callback(void)
{
    return in_stream_callback;
}

void stream_callback_running(int running)
{
    in_stream_callback = running;
}
