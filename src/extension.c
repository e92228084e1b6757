/* extension.c: numba_cuda_c._cuda, initialised in phases (PEP 489): the top of the house. Creates
 * every exception and type (most layer by layer from the bottom; DLPack's and the graphs' types last, as nothing
 * below needs them at init), and gathers each file's module functions. Touches no
 * driver: the driver is loaded at first use, so the import works, fast, on a machine with no GPU. */
#include "driver/state.h"
#include "arrays/raw_copies.h"
#include "arrays/devicearray_functions.h"
#include "arrays/devicearray_type.h"

#include "core/context.h"
#include "core/device.h"
#include "driver/errors.h"
#include "core/event.h"
#include "core/graph.h"
#include "core/graph_exec.h"
#include "core/context_memory.h"
#include "core/copies.h"
#include "core/ipc.h"
#include "core/memory.h"
#include "core/memory_alloc.h"
#include "core/deallocations.h"
#include "core/rescue.h"
#include "arrays/devicearray.h"
#include "launch/argument_plan.h"
#include "launch/c_api.h"
#include "launch/dispatch.h"
#include "arrays/dlpack.h"
#include "arrays/transfer.h"
#include "launch/kernel.h"
#include "launch/launch.h"
#include "launch/loaded_module.h"
#include "launch/linker.h"
#include "launch/nvrtc.h"
#include "core/stream.h"

static int module_exec(PyObject *module)
{
    module_state *st = state_of_module(module);
    if (errors_init(module, st) < 0 || device_type_init(module, st) < 0 || context_type_init(module, st) < 0 ||
        stream_type_init(module, st) < 0 || event_type_init(module, st) < 0 || memory_type_init(module, st) < 0 ||
        context_memory_init(module, st) < 0 || deallocations_init(module, st) < 0 || rescue_init(module, st) < 0 ||
        devicearray_type_init(module, st) < 0 || module_type_init(module, st) < 0 ||
        kernel_type_init(module, st, launch_configure) < 0 || launch_type_init(module, st) < 0 ||
        dispatch_type_init(module, st) < 0 || argument_plan_type_init(module, st) < 0 ||
        linker_type_init(module, st) < 0 || dlpack_type_init(module, st) < 0 || graph_type_init(module, st) < 0 ||
        graph_exec_type_init(module, st) < 0 || c_api_init(module, st) < 0)
        return -1;
    PyMethodDef *tables[] = {
        device_module_methods, context_module_methods,      nvrtc_module_methods,         stream_module_methods,
        event_module_methods,  memory_alloc_module_methods, devicearray_module_methods,   transfer_module_methods,
        loaded_module_methods, launch_module_methods,       driver_module_methods,        dlpack_module_methods,
        copies_module_methods, ipc_module_methods,          deallocations_module_methods, c_api_module_methods};
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++)
        if (PyModule_AddFunctions(module, tables[i]) < 0)
            return -1;
    return 0;
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
    {0, NULL},
};

PyMODINIT_FUNC PyInit__cuda(void)
{
    numba_cuda_c_module.m_slots = module_slots;
    return PyModuleDef_Init(&numba_cuda_c_module);
}
