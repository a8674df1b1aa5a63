// L0022: nesting too deep: an expression inside 300 pairs of parentheses
// (generated). lanes limits nesting so that the recursive-descent parser
// cannot overflow its stack; one error is reported for the expression and
// the rest of the file is analysed.

__kernel void deep(__global float *x, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float v = ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((x[i])))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))); //~ error[L0022]
    x[i] = v + 1.0f;
}

__kernel void after(__global float *x)
{
    x[get_global_id(0)] = 0.0f;
}
