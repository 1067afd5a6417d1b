import { Module } from '@nestjs/common';
import { CompileController } from './compile.controller';

/** The compile pipeline's routes (issue 5 item 7). */
@Module({ controllers: [CompileController] })
export class CompileModule {}
