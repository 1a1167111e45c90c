import { join } from 'node:path';
import * as ts from 'typescript';
import { DomainError, ErrorKind } from '@ledger/platform';
import { toProblem } from '../../libs/http/src/problem/problem';

const ROOT = join(__dirname, '..', '..');
const ERRORS_FILE = join(ROOT, 'libs', 'platform', 'src', 'errors.ts');

/** A refusal the source can throw, as a client receives it. */
export interface ThrownCode {
  status: number;
  code: string;
}

type FunctionLike = ts.FunctionLikeDeclaration & { body: ts.Node };

/**
 * Reads, from the TypeScript source of apps/ and libs/, every refusal with a
 * stable code (a call of an errors.ts helper that takes the code from its
 * caller, such as conflict or unavailable, or `new DomainError`) and which of
 * them each function can reach by calls: the functions and methods it names,
 * the methods of every class assignable to an interface whose method it calls
 * (an injected EventStore, TenantKeySource, ValueProtection), and the handler
 * of a command or query it constructs (@nestjs/cqrs dispatches by class).
 * Codes are read from the argument's type, so a constant or `a ? 'x' : 'y'`
 * counts.
 *
 * It is static, and approximate both ways: a branch the inputs of a route
 * never take still counts, so a route may be asked to declare a code it
 * cannot give; the closures of an object a factory returns (the banking
 * calendar's) and event handlers (asynchronous, after the answer) are not
 * followed.
 */
export class ThrownCodes {
  private readonly program: ts.Program;
  private readonly checker: ts.TypeChecker;
  private readonly sources: ts.SourceFile[];
  private readonly handlerOf = new Map<ts.Symbol, FunctionLike>();
  private readonly classes: ts.ClassDeclaration[] = [];
  private readonly implementationsOf = new Map<ts.InterfaceDeclaration, ts.ClassDeclaration[]>();
  private readonly reachedBy = new Map<ts.Node, Map<string, ThrownCode>>();
  /** Where a DomainError is built from a code the compiler cannot name as literals (a `string`), as `path:line`. */
  readonly unreadable = new Set<string>();

  constructor() {
    const configFile = ts.findConfigFile(ROOT, ts.sys.fileExists, 'tsconfig.json')!;
    const config = ts.getParsedCommandLineOfConfigFile(configFile, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
    const production = (file: string) => /\/(apps|libs)\//.test(file) && !/\.(spec|e2e-spec)\.ts$/.test(file) && !/\/testing\//.test(file);
    this.program = ts.createProgram({ rootNames: config.fileNames.filter(production), options: { ...config.options, noEmit: true } });
    this.checker = this.program.getTypeChecker();
    this.sources = this.program.getSourceFiles().filter((file) => production(file.fileName));
    for (const source of this.sources) this.index(source);
  }

  /** Every code the source throws through the error helpers, by the status it is answered with. */
  all(): ThrownCode[] {
    const codes = new Map<string, ThrownCode>();
    for (const source of this.sources) {
      if (source.fileName === ERRORS_FILE) continue;
      const visit = (node: ts.Node): void => {
        for (const thrown of this.codesBuiltAt(node)) codes.set(`${thrown.status} ${thrown.code}`, thrown);
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    return [...codes.values()];
  }

  /** The codes the method `methodName` of class `className` (a controller's route handler) can reach. */
  reachableFrom(className: string, methodName: string): ThrownCode[] {
    const method = this.method(className, methodName);
    if (!method) throw new Error(`No method ${className}.${methodName} in apps/ or libs/`);
    return [...this.reach(method).values()];
  }

  private method(className: string, methodName: string): FunctionLike | undefined {
    for (const source of this.sources) {
      for (const statement of source.statements) {
        if (!ts.isClassDeclaration(statement) || statement.name?.text !== className) continue;
        const member = statement.members.find((m) => ts.isMethodDeclaration(m) && m.name.getText() === methodName && m.body);
        if (member) return member as FunctionLike;
      }
    }
    return undefined;
  }

  /** Command and query handlers by the class they handle; every class, for the implementations of interfaces. */
  private index(source: ts.SourceFile): void {
    for (const statement of source.statements) {
      if (!ts.isClassDeclaration(statement)) continue;
      for (const decorator of ts.getDecorators(statement) ?? []) {
        const call = decorator.expression;
        if (!ts.isCallExpression(call) || !/^(CommandHandler|QueryHandler)$/.test(call.expression.getText())) continue;
        const handled = call.arguments[0] && this.symbolOf(call.arguments[0]);
        const execute = statement.members.find((m) => ts.isMethodDeclaration(m) && m.name.getText() === 'execute' && m.body);
        if (handled && execute) this.handlerOf.set(handled, execute as FunctionLike);
      }
      this.classes.push(statement);
    }
  }

  /** The classes whose instances are an `port`, whether or not they say `implements`: TypeScript's types are structural. */
  private implementations(port: ts.InterfaceDeclaration): ts.ClassDeclaration[] {
    let found = this.implementationsOf.get(port);
    if (!found) {
      const wanted = this.checker.getTypeAtLocation(port);
      found = this.classes.filter((c) => c.name && this.checker.isTypeAssignableTo(this.checker.getTypeAtLocation(c), wanted));
      this.implementationsOf.set(port, found);
    }
    return found;
  }

  private symbolOf(node: ts.Node): ts.Symbol | undefined {
    const symbol = this.checker.getSymbolAtLocation(node);
    return symbol && symbol.flags & ts.SymbolFlags.Alias ? this.checker.getAliasedSymbol(symbol) : symbol;
  }

  /** The codes reachable from `root`, each function walked once (recursion and cycles included). */
  private reach(root: FunctionLike): Map<string, ThrownCode> {
    const cached = this.reachedBy.get(root);
    if (cached) return cached;
    const codes = new Map<string, ThrownCode>();
    const seen = new Set<ts.Node>([root]);
    const pending: ts.Node[] = [root.body];
    while (pending.length > 0) {
      const visit = (node: ts.Node): void => {
        for (const thrown of this.codesBuiltAt(node)) codes.set(`${thrown.status} ${thrown.code}`, thrown);
        for (const callee of this.calleesAt(node)) {
          if (seen.has(callee)) continue;
          seen.add(callee);
          pending.push(callee.body);
        }
        ts.forEachChild(node, visit);
      };
      visit(pending.pop()!);
    }
    this.reachedBy.set(root, codes);
    return codes;
  }

  /** The functions with a body in our source that `node` names or calls. */
  private calleesAt(node: ts.Node): FunctionLike[] {
    const ours = (declaration: ts.Declaration | undefined): declaration is FunctionLike =>
      !!declaration && ts.isFunctionLike(declaration) && !!(declaration as ts.FunctionLikeDeclaration).body && this.sources.includes(declaration.getSourceFile());
    if (ts.isNewExpression(node)) {
      const constructed = this.symbolOf(node.expression);
      const handler = constructed && this.handlerOf.get(constructed);
      const declaration = this.checker.getResolvedSignature(node)?.declaration;
      return [handler, ours(declaration) ? declaration : undefined].filter((f): f is FunctionLike => !!f);
    }
    if (!ts.isIdentifier(node) && !ts.isPrivateIdentifier(node)) return [];
    // A name in a declaration position (a parameter, a property being declared) is not a use.
    if (node.parent && (ts.isFunctionLike(node.parent) || ts.isParameter(node.parent) || ts.isPropertyDeclaration(node.parent)) && (node.parent as ts.NamedDeclaration).name === node) return [];
    const symbol = this.symbolOf(node);
    const callees: FunctionLike[] = [];
    for (const declaration of symbol?.declarations ?? []) {
      if (ours(declaration)) callees.push(declaration);
      else if ((ts.isMethodSignature(declaration) || ts.isPropertySignature(declaration)) && ts.isInterfaceDeclaration(declaration.parent)) {
        const name = declaration.name.getText();
        for (const implementation of this.implementations(declaration.parent)) {
          const member = implementation.members.find((m) => m.name?.getText() === name);
          if (ours(member)) callees.push(member);
        }
      } else if (ts.isVariableDeclaration(declaration) && declaration.initializer && ours(declaration.initializer as unknown as ts.Declaration)) {
        callees.push(declaration.initializer as unknown as FunctionLike);
      }
    }
    return callees;
  }

  /** The refusals `node` builds, if it is a call of an error helper or `new DomainError`. */
  private codesBuiltAt(node: ts.Node): ThrownCode[] {
    let built: { kind: ts.Expression; code: ts.Expression } | undefined;
    if (ts.isNewExpression(node) && this.isDomainError(node.expression)) {
      built = { kind: node.arguments![0], code: node.arguments![1] };
    } else if (ts.isCallExpression(node)) {
      const helper = this.symbolOf(node.expression)?.declarations?.[0];
      if (helper && ts.isFunctionDeclaration(helper) && helper.getSourceFile().fileName === ERRORS_FILE) {
        const passed = this.codeParameterOf(helper);
        if (passed) built = { kind: passed.kind, code: node.arguments[passed.index] };
      }
    }
    if (!built) return [];
    const kinds = this.literals(built.kind);
    const codes = built.code && this.literals(built.code);
    if (!kinds || !codes) {
      const { line } = node.getSourceFile().getLineAndCharacterOfPosition(node.getStart());
      if (node.getSourceFile().fileName !== ERRORS_FILE) this.unreadable.add(`${node.getSourceFile().fileName.slice(ROOT.length + 1)}:${line + 1}`);
      return [];
    }
    return kinds.flatMap((kind) => codes.map((code) => ({ status: toProblem(new DomainError(kind as ErrorKind, code, '')).status, code })));
  }

  private isDomainError(expression: ts.Expression): boolean {
    const declaration = this.symbolOf(expression)?.declarations?.[0];
    return !!declaration && ts.isClassDeclaration(declaration) && declaration.name?.text === 'DomainError' && declaration.getSourceFile().fileName === ERRORS_FILE;
  }

  /**
   * For a helper of errors.ts that builds `new DomainError(<kind>, <one of its
   * parameters>, …)` (conflict, gone, unprocessable…): the kind it builds and
   * which argument its callers pass the code in. Read from the helper, so a
   * new helper is covered without a list to keep.
   */
  private codeParameterOf(helper: ts.FunctionDeclaration): { kind: ts.Expression; index: number } | undefined {
    let found: { kind: ts.Expression; index: number } | undefined;
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node) && this.isDomainError(node.expression) && node.arguments?.[1] && ts.isIdentifier(node.arguments[1])) {
        const index = helper.parameters.findIndex((parameter) => ts.isIdentifier(parameter.name) && parameter.name.text === (node.arguments![1] as ts.Identifier).text);
        if (index >= 0) found = { kind: node.arguments[0], index };
      }
      ts.forEachChild(node, visit);
    };
    if (helper.body) visit(helper.body);
    return found;
  }

  /** The string literals an expression's type allows, or undefined when it is wider (a `string`). */
  private literals(expression: ts.Expression): string[] | undefined {
    const type = this.checker.getTypeAtLocation(expression);
    const members = type.isUnion() ? type.types : [type];
    return members.every((member) => member.isStringLiteral()) ? members.map((member) => (member as ts.StringLiteralType).value) : undefined;
  }
}
