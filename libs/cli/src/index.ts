/** What the command-line tools share: {@link runCli}, their `main()` with the house's exit codes. */
export * from './run-cli';
