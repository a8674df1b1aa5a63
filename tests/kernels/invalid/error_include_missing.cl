// L0010: included files that do not exist. Each missing include is
// reported on its directive; the rest of the file is still processed.

#include "missing.h"
//~^ error[L0010]
#include "include/also_missing.h"   //~ error[L0010]

__kernel void unaffected(__global float *x, int n)
{
    int i = get_global_id(0);
    if (i < n)
        x[i] = 0.0f;
}
