// L0915: inline assembly is not supported. The asm statement is reported
// once (its operand strings are part of it, not string literals of their
// own). Otherwise accepted by clang for x86 targets.
//
// Launch: 1-D, global = round_up(n).

__kernel void with_asm(__global float *x, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    __asm__ volatile("" ::: "memory");              //~ error[L0915]
    x[i] += 1.0f;
}
