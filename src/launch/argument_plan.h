/* argument_plan.h: ArgumentPlan, what a launch does to its arguments before the LaunchConfig takes them
 * (argument_plan.c). */
#ifndef NUMBA_CUDA_C_ARGUMENT_PLAN_H
#define NUMBA_CUDA_C_ARGUMENT_PLAN_H

#include "driver/state.h"

int argument_plan_type_init(PyObject *module, module_state *st);

#endif
