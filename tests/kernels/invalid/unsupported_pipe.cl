// L0909: pipes are not supported: a pipe kernel parameter and the
// write_pipe built-in. Otherwise valid OpenCL C 2.0.
//
// Launch: 1-D, global = round_up(n).

__kernel void producer(__global const int *in, int n,
                       __write_only pipe int out_pipe)     //~ error[L0909]
{
    int i = get_global_id(0);
    if (i < n) {
        int v = in[i] * 2;
        write_pipe(out_pipe, &v);                          //~ error[L0909]
    }
}
