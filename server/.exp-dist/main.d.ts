export declare function main(argv: string[]): Promise<void>;
