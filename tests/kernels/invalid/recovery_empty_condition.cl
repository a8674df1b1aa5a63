// Half-typed code: statements whose conditions are still empty. Each empty
// condition is one syntax error at the `)` or `;` where the expression
// should be; the bodies are still parsed and checked, and so is the code
// after them.

__kernel void conditions(__global float *out, __global const float *in, int n)
{
    int i = get_global_id(0);
    if () {                                         //~ error[L0001]
        out[i] = 1.0f;
        out[i] += not_declared_in_body;             //~ error[L0003]
    }
    while ( )                                       //~ error[L0001]
        break;
    for (int k = 0; k < ; k++)                      //~ error[L0001]
        out[i] += in[k];
    switch () {                                     //~ error[L0001]
    default:
        break;
    }
    out[i] += checked_after_conditions;             //~ error[L0003]
}
