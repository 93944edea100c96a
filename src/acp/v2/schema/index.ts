/** ACP v2's wire schemas this client reads (tolerant zod; see updates.ts). */
export * from './updates';
