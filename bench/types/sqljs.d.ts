/** The part of sql.js (1.16, no bundled types) the transcript benchmark uses. */
declare module 'sql.js' {
  interface Statement {
    bind(values: readonly unknown[]): boolean;
    step(): boolean;
    get(): unknown[];
    reset(): void;
    free(): void;
  }
  interface Database {
    run(sql: string, params?: readonly unknown[]): Database;
    prepare(sql: string): Statement;
    export(): Uint8Array;
    close(): void;
  }
  interface SqlJsStatic {
    Database: new (data?: Uint8Array) => Database;
  }
  export default function initSqlJs(): Promise<SqlJsStatic>;
}
