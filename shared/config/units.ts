/** Code units per written unit, for keys written in one unit and used in another (`scale` of a key). */
export const KIB = 1024;
export const MIB = 1024 * 1024;
export const MS_PER_SECOND = 1000;
