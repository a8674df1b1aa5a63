// nearest_neighbor.cl - distances from geographic records to one query
// point (in the style of Rodinia's nn), and a per-item top-2 search over a
// candidate window.
//
// Launch: 1-D. euclid: global = round_up(nrecords); ids >= nrecords return.
//   top2_in_window: global = round_up(nrecords); ids >= nrecords return.
// Arguments: locations has nrecords float2 (latitude, longitude); distances
//   has nrecords floats. top2_in_window: each item scans distances[i ..
//   min(i + window, nrecords)) and writes the two smallest values (ascending)
//   to best2[2 * i], best2[2 * i + 1]; window >= 1.

typedef struct {
    float lat;
    float lng;
} LatLong;

__kernel void euclid(__global const LatLong *locations, __global float *distances,
                     int nrecords, float lat, float lng)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= nrecords)  //~ branch: divergent
        return;

    LatLong l = locations[i];
    float dlat = lat - l.lat;  //~ shape: varying
    float dlng = lng - l.lng;
    distances[i] = sqrt(dlat * dlat + dlng * dlng);  //~ access: distances[i]=store:contiguous
}

__kernel void top2_in_window(__global const float *distances, __global float *best2,
                             int nrecords, int window)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= nrecords)  //~ branch: divergent
        return;

    float b0 = INFINITY;  //~ shape: varying
    float b1 = INFINITY;
    int end = min(nrecords, i + window);  //~ shape: varying
    for (int k = i; k < end; k++) {  //~ shape: contiguous //~ loop: divergent //~ warning[L0201]
        float d = distances[k];  //~ shape: varying //~ access: distances[k]=contiguous
        if (d < b0) {  //~ branch: divergent
            b1 = b0;
            b0 = d;
        } else if (d < b1) {  //~ branch: divergent
            b1 = d;
        }
    }
    best2[2 * i] = b0;  //~ access: best2[2 * i]=store:strided(8) //~ warning[L0204]
    best2[2 * i + 1] = b1;  //~ access: best2[2 * i + 1]=store:strided(8) //~ warning[L0204]
}
