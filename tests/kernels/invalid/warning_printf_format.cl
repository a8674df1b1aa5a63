// L0110: a printf format that does not match its arguments (clang's
// -Wformat warnings): the argument count, the kind of each conversion, the
// vector specifier. printf itself is analysed like any call.
//
// Launch: 1-D, global = round_up(n).

__kernel void debug_print(__global const float *x, __global const int4 *v, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    printf("x[%d] = %d\n", i, x[i]);                     //~ warning[L0110]
    printf("%d %d\n", i);                                //~ warning[L0110]
    printf("%d\n", i, n);                                //~ warning[L0110]
    printf("%v4hld\n", v[i]);
    printf("%v2hld\n", v[i]);                            //~ warning[L0110]
    printf("%ld\n", i);                                  //~ warning[L0110]
}
