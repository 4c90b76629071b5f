/** `0x…` for messages. */
export const hex = (v: number | bigint): string => `0x${v.toString(16)}`;
