// L0011: malformed preprocessor directives: an unknown directive, #define
// without a name or with a number as its name, #include without a file,
// #if without an expression, #ifdef and #undef without a valid name. A
// conditional with a malformed condition is treated as false.

#foo bar
//~^ error[L0011]
#define
//~^ error[L0011]
#define 123 4
//~^ error[L0011]
#include
//~^ error[L0011]
#if
//~^ error[L0011]
#endif
#ifdef
//~^ error[L0011]
#endif
#undef 42
//~^ error[L0011]

__kernel void unaffected(__global float *x, int n)
{
    int i = get_global_id(0);
    if (i < n)
        x[i] = 1.0f;
}
