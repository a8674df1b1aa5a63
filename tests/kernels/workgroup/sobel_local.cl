/*
 * sobel_local.cl - Sobel edge magnitude of an RGBA8 image stored in a
 * buffer: every work-group converts a (LY + 2) x (LX + 2) tile (its pixels
 * plus a one-pixel apron, borders clamped) to luminance in __local memory,
 * then each work-item applies the two 3x3 Sobel masks to its pixel.
 *
 * Auteur : François Lefèvre, © 2026 ; révision par Ana Muñoz.
 * Distribué sous licence MIT.
 *
 * Launch: 2-D, global = (width, height), local = (LX, LY) as required;
 *   width a multiple of LX, height of LY.
 * Arguments: in has width * height uchar4 (RGBA), out has width * height
 *   uchars (the magnitude, saturated).
 */

#ifndef LX
#define LX 16
#endif
#ifndef LY
#define LY 4
#endif

// Rec. 601 luma weights.
float luma(uchar4 p)
{
    return 0.299f * p.x + 0.587f * p.y + 0.114f * p.z;
}

// run: sobel --global 32,16 --local 16,4 --arg in=random:512:0:256 --arg out=zeros:512 --arg width=32 --arg height=16
// run: sobel --global 32,16 --local 8,8 -D LX=8 -D LY=8 --arg in=random:512:0:256 --arg out=zeros:512 --arg width=32 --arg height=16
__kernel __attribute__((reqd_work_group_size(LX, LY, 1)))
void sobel(__global const uchar4 *in, __global uchar *out, int width, int height)
{
    __local float tile[LY + 2][LX + 2];

    int lx = get_local_id(0);  //~ shape: contiguous
    int ly = get_local_id(1);  //~ shape: uniform
    int x0 = get_group_id(0) * LX - 1;  //~ shape: uniform
    int y0 = get_group_id(1) * LY - 1;

    for (int i = ly; i < LY + 2; i += LY) {  //~ loop: uniform //~ shape: i=uniform
        int y = clamp(y0 + i, 0, height - 1);  //~ shape: uniform
        for (int j = lx; j < LX + 2; j += LX) {  //~ loop: divergent //~ warning[L0201]
            int x = clamp(x0 + j, 0, width - 1);
            tile[i][j] = luma(in[y * width + x]);  //~ access: tile[i][j]=store:contiguous //~ warning[L0202]
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    int cx = lx + 1, cy = ly + 1;
    float gx = tile[cy - 1][cx + 1] + 2.0f * tile[cy][cx + 1] + tile[cy + 1][cx + 1]
             - tile[cy - 1][cx - 1] - 2.0f * tile[cy][cx - 1] - tile[cy + 1][cx - 1];
    float gy = tile[cy + 1][cx - 1] + 2.0f * tile[cy + 1][cx] + tile[cy + 1][cx + 1]
             - tile[cy - 1][cx - 1] - 2.0f * tile[cy - 1][cx] - tile[cy - 1][cx + 1];
    float mag = sqrt(gx * gx + gy * gy);
    out[get_global_id(1) * width + get_global_id(0)] = convert_uchar_sat(mag);  //~ access: out[get_global_id(1) * width + get_global_id(0)]=store:contiguous
}
